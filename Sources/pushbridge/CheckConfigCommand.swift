import Foundation
import PushBridgeServer

/// `pushbridge check-config FILE`: prints every problem of a configuration file, one per line.
/// Exit status: 0 valid, 1 invalid, 2 usage.
enum CheckConfigCommand {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 1 else {
            printError("usage: pushbridge check-config FILE")
            return 2
        }
        let problems = ProxyConfiguration.check(fileAt: arguments[0], environment: ProcessInfo.processInfo.environment)
        if problems.isEmpty {
            print("\(arguments[0]): ok")
            return 0
        }
        for p in problems { print(p) }
        return 1
    }
}
