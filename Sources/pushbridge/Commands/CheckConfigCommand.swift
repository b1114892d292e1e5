import Foundation
import PushBridgeServer

/// `pushbridge check-config FILE`: prints every problem of a configuration file, one per line;
/// for a valid file, its warnings (``AppConfiguration/configurationWarnings``), the longest PushBridge can take to answer and the read timeout a front
/// proxy needs (``ProxyConfiguration/handlerDeadline``).
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
            if let configuration = try? ProxyConfiguration.load(fileAt: file, environment: ProcessInfo.processInfo.environment) {
                for warning in configuration.apps.flatMap(\.configurationWarnings) { print("warning: \(warning)") }
                print("longest answer: \(configuration.handlerDeadlineExplanation)")
                print("front proxy: wait longer than that for PushBridge's answer, e.g. nginx proxy_read_timeout \(configuration.frontProxyReadTimeoutSeconds)s; "
                      + "a proxy that gives up sooner answers 504 while the request may still be forwarded")
            }
            return 0
        }
        for p in problems { print(p) }
        return 1
    }
}
