import Foundation
import PushBridgeServer

/// `pushbridge serve --config FILE [--welcome FILE]`: runs the proxy until SIGTERM/SIGINT,
/// then stops gracefully (stop accepting, finish in-flight requests, flush the audit).
/// `--welcome` prints a text for a person on stdout once it listens, with `{listen}`,
/// `{sandbox}`, `{doubles}`, `{admin}` and `{audit}` replaced by where the proxy, the embedded
/// sandbox, the legacy doubles and the admin listener listen and where the audit is (`make run`
/// prints `config/demo-welcome.txt`).
enum ServeCommand {
    /// The declaration.
    static let command = Command(
        name: "serve", summary: "run the proxy until SIGTERM or SIGINT (SIGHUP reloads the apps)",
        options: [
            .config("the configuration file (see config/pushbridge.example.json)", required: true),
            Option(name: "welcome", kind: .text(placeholder: "FILE"),
                   help: "print FILE once listening, with {listen}, {sandbox}, {doubles}, {admin} and {audit} filled in"),
        ],
        notes: "Exit status: 0 stopped cleanly, 1 the configuration is invalid or the proxy could not start, 2 usage.",
        run: { await run($0) })

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        // First: a SIGTERM sent as soon as "listening" is logged must not be lost.
        let termination = SignalWaiter()
        let path = arguments["config"] ?? ""
        var welcome: String?
        if let file = arguments["welcome"] {
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
            "tls": .bool(runtime.server?.servesTLS ?? false),
            "sandbox": .bool(runtime.sandboxServer != nil),
            "legacy_doubles": runtime.legacyDoubles.map { .string($0.baseURL) } ?? .bool(false),
            "audit_db": .string(configuration.auditDatabasePath),
            "apps": .int(Int64(configuration.apps.count)),
        ])
        if let welcome {
            let sandbox = runtime.sandboxServer.map { "\(configuration.sandbox.listen.host):\($0.port)" } ?? "(no embedded sandbox)"
            let text = welcome.replacingOccurrences(of: "{listen}", with: "\(configuration.listen.host):\(runtime.port)")
                .replacingOccurrences(of: "{sandbox}", with: sandbox).replacingOccurrences(of: "{audit}", with: configuration.auditDatabasePath)
                .replacingOccurrences(of: "{doubles}", with: runtime.legacyDoubles?.baseURL ?? "(no legacy doubles)")
                .replacingOccurrences(of: "{admin}", with: runtime.adminServer.map { "\(configuration.admin?.listen.host ?? "127.0.0.1"):\($0.port)" } ?? "(no admin listener)")
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        let reloader = runtime.reloadOnHangup(configPath: path)
        await termination.wait()
        withExtendedLifetime(reloader) {}
        log.info("stopping: finishing in-flight requests and flushing the audit")
        await runtime.stop()
        log.info("stopped")
        return 0
    }
}
