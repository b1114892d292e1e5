import PushBridgeCore
import PushBridgeServer

/// `pushbridge sandbox [--listen HOST:PORT] [--seed FILE] [--db FILE]` and
/// `pushbridge sandbox sends --db FILE [--app APP_ID]`: the local OpenPush double.
enum SandboxCommand {
    /// The declaration.
    static let command = Command(
        name: "sandbox", summary: "run the local OpenPush sandbox until SIGTERM or SIGINT",
        options: [
            Option(name: "listen", kind: .address, help: "where to listen (default 127.0.0.1:4100; port 0 picks one)"),
            Option(name: "seed", kind: .text(placeholder: "FILE"), help: "apps, devices and the clock to start from (see docs/sandbox.md)"),
            .db("keep the sandbox's state in FILE (default: in memory)"),
        ],
        subcommands: [
            Command(name: "sends", summary: "print what the sandbox would have sent, as JSON",
                    options: [.db("the sandbox database", required: true), .app("only app APP_ID")],
                    run: { sends($0) })
        ],
        run: { await serve($0) })

    static func serve(_ arguments: ParsedArguments) async -> Int32 {
        // First: a SIGTERM sent as soon as the sandbox says it listens must not be lost.
        let termination = SignalWaiter()
        let address = arguments["listen"].flatMap(HostPort.init) ?? HostPort(host: "127.0.0.1", port: 4100)
        let options = SandboxLauncher.Options(host: address.host, port: address.port, seedPath: arguments["seed"], dbPath: arguments["db"])
        // stdout is a pipe or a file more often than a terminal: every line goes out whole, at once.
        let stdout = EventLog.fileDescriptor(1)
        do {
            try await SandboxLauncher.serve(options, log: EventLog(sink: stdout), ready: { port in
                stdout("pushbridge sandbox listening on http://\(ProxyConfiguration.ListenAddress(host: options.host, port: Int(port))) (state: \(options.dbPath ?? "in memory"))\n")
            }, until: termination.wait)
            return 0
        } catch {
            return arguments.fail("\(error)")
        }
    }

    static func sends(_ arguments: ParsedArguments) -> Int32 {
        do {
            let sends = try SandboxLauncher.sends(dbPath: arguments["db"] ?? "", app: arguments["app"])
            print(TerminalText.json(JSONWriter.pretty(.object(["sends": .array(sends.map(JSONValue.object))]))))
            return 0
        } catch {
            return arguments.fail("\(error)")
        }
    }
}
