import Foundation
import PushBridgeServer

/// `pushbridge serve --config FILE [--welcome FILE]`: runs the proxy until SIGTERM/SIGINT,
/// then stops gracefully (stop accepting, finish in-flight requests, flush the audit).
/// `--welcome` prints a text for a person on stdout once it listens, with `{listen}`,
/// `{sandbox}` and `{audit}` replaced by where the proxy and the embedded sandbox listen and
/// where the audit is (`make run` prints `config/demo-welcome.txt`).
enum ServeCommand {
    static let usage = "usage: pushbridge serve --config FILE [--welcome FILE]"

    static func run(_ arguments: [String]) async -> Int32 {
        let options: CommandOptions
        do {
            options = try CommandOptions(arguments, valued: ["config", "welcome"], flags: [])
        } catch {
            printError("pushbridge serve: \(error)\n\(usage)")
            return 2
        }
        guard let path = options.values["config"], options.positional.isEmpty else {
            printError(usage)
            return 2
        }
        var welcome: String?
        if let file = options.values["welcome"] {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                printError("pushbridge serve: cannot read the welcome text \(file)")
                return 2
            }
            welcome = text
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
        if let welcome {
            let sandbox = runtime.sandboxServer.map { "\(configuration.sandbox.listen.host):\($0.port)" } ?? "(no embedded sandbox)"
            let text = welcome.replacingOccurrences(of: "{listen}", with: "\(configuration.listen.host):\(runtime.port)")
                .replacingOccurrences(of: "{sandbox}", with: sandbox).replacingOccurrences(of: "{audit}", with: configuration.auditDatabasePath)
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        let reloader = runtime.reloadOnHangup(configPath: path)
        await SignalWaiter.waitForTermination()
        withExtendedLifetime(reloader) {}
        log.info("stopping: finishing in-flight requests and flushing the audit")
        await runtime.stop()
        log.info("stopped")
        return 0
    }
}
