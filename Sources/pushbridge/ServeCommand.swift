import Foundation
import PushBridgeServer

/// `pushbridge serve --config FILE`: runs the proxy until SIGTERM/SIGINT, then stops
/// gracefully (stop accepting, finish in-flight requests, flush the audit).
enum ServeCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        let options: CommandOptions
        do {
            options = try CommandOptions(arguments, valued: ["config"], flags: [])
        } catch {
            printError("pushbridge serve: \(error)\nusage: pushbridge serve --config FILE")
            return 2
        }
        guard let path = options.values["config"], options.positional.isEmpty else {
            printError("usage: pushbridge serve --config FILE")
            return 2
        }
        let configuration: ProxyConfiguration
        do {
            configuration = try ProxyConfiguration.load(fileAt: path, environment: ProcessInfo.processInfo.environment)
        } catch {
            printError("pushbridge serve: \(path) is not valid:\n\(error)")
            return 1
        }
        let log = EventLog(format: configuration.logFormat)
        let runtime: ProxyRuntime
        do {
            runtime = try ProxyRuntime.start(configuration, log: log)
        } catch {
            log.error("could not start", ["error": .string("\(error)")])
            return 1
        }
        log.info("listening", [
            "address": .string("\(configuration.listen.host):\(runtime.port)"),
            "openpush": .string(runtime.openPushBaseURL),
            "tls": .bool(runtime.server.servesTLS),
            "sandbox": .bool(runtime.sandboxServer != nil),
            "audit_db": .string(configuration.auditDatabasePath),
            "apps": .int(Int64(configuration.apps.count)),
        ])
        let reloader = runtime.reloadOnHangup(configPath: path)
        await SignalWaiter.waitForTermination()
        withExtendedLifetime(reloader) {}
        log.info("stopping: finishing in-flight requests and flushing the audit")
        await runtime.stop()
        log.info("stopped")
        return 0
    }
}
