import Foundation
import PushBridgeServer

/// `pushbridge check-config FILE`: prints every problem of a configuration file, one per line.
enum CheckConfigCommand {
    /// The declaration.
    static let command = Command(
        name: "check-config", summary: "validate a configuration file and print every problem, one per line",
        positionals: [.init(name: "FILE", help: "the configuration file")],
        notes: "Exit status: 0 valid, 1 invalid, 2 usage.",
        run: { run($0) })

    static func run(_ arguments: ParsedArguments) -> Int32 {
        let file = arguments.positional[0]
        let problems = ProxyConfiguration.check(fileAt: file, environment: ProcessInfo.processInfo.environment)
        if problems.isEmpty {
            print("\(file): ok")
            return 0
        }
        for p in problems { print(p) }
        return 1
    }
}
