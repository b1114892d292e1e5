import Foundation
import PushBridgeCore

/// `pushbridge sandbox [--listen 127.0.0.1:PORT] [--seed FILE] [--db FILE]` and
/// `pushbridge sandbox sends --db FILE [--app ID]`. The CLI's `main.swift` calls `run`.
public enum SandboxCommand {
    /// The default listen address.
    public static let defaultListen = "127.0.0.1:4100"

    /// The usage text.
    public static let usage = """
        usage: pushbridge sandbox [--listen HOST:PORT] [--seed FILE] [--db FILE]
               pushbridge sandbox sends --db FILE [--app APP_ID]
        """

    /// Parsed arguments.
    public struct Options: Sendable, Equatable {
        /// Bind address.
        public var host = "127.0.0.1"
        /// Bind port (0 picks one).
        public var port: UInt16 = 4100
        /// Seed file.
        public var seedPath: String?
        /// SQLite database file; in-memory state when nil.
        public var dbPath: String?
        /// `sends` subcommand: list the recorded sends and exit.
        public var listSends = false
        /// `sends --app`.
        public var app: String?

        /// Defaults.
        public init() {}
    }

    /// Parses the arguments that follow `sandbox`.
    public static func parse(_ arguments: [String]) throws -> Options {
        var o = Options()
        var it = arguments.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let v = it.next() else { throw SandboxSeedError("\(flag) needs a value\n\(usage)") }
            return v
        }
        while let arg = it.next() {
            switch arg {
            case "sends": o.listSends = true
            case "--listen":
                let v = try value(arg)
                guard let colon = v.lastIndex(of: ":"), let port = UInt16(v[v.index(after: colon)...]) else {
                    throw SandboxSeedError("--listen wants HOST:PORT, got \(v)")
                }
                o.host = String(v[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                o.port = port
            case "--seed": o.seedPath = try value(arg)
            case "--db": o.dbPath = try value(arg)
            case "--app": o.app = try value(arg)
            default: throw SandboxSeedError("unknown argument \(arg)\n\(usage)")
            }
        }
        if o.listSends, o.dbPath == nil { throw SandboxSeedError("sandbox sends needs --db FILE\n\(usage)") }
        return o
    }

    /// A sandbox service for the options: its store (SQLite with `dbPath`, else memory), its
    /// clock (running with real time from the seed's `now`, or the wall clock), its rate window
    /// (`rateWindowSeconds`, OpenPush's 60 s by default) and the seed applied.
    public static func makeService(seedPath: String?, dbPath: String?,
                                   rateWindowSeconds: Int64 = OpenPushLimits.rateLimitWindowSeconds) throws -> SandboxService {
        let seed = try seedPath.map { try SandboxSeed.load(path: $0) }
        let clock = SandboxClock(start: seed?.now)
        let options = SandboxOptions(simulateDeviceRegistration: seed?.simulateDeviceRegistration ?? true,
                                     rateWindowSeconds: rateWindowSeconds)
        let service = SandboxService(clock: clock, store: try makeStore(dbPath: dbPath), options: options)
        if let seed { try service.apply(seed) }
        return service
    }

    /// Runs the command; returns the exit status.
    public static func run(arguments: [String]) async throws -> Int32 {
        let o: Options
        do { o = try parse(arguments) } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            return 2
        }
        if o.listSends {
            let service = try makeService(seedPath: nil, dbPath: o.dbPath.map { path throws in try ExistingFile.require(path, what: "sandbox file") })
            print(JSONWriter.pretty(.object(["sends": .array(service.sends(app: o.app).map(JSONValue.object))])))
            return 0
        }
        // stdout is a pipe or a file more often than a terminal: every line goes out whole, at once.
        let stdout = EventLog.fileDescriptor(1)
        try await serve(o, log: EventLog(sink: stdout), ready: { port in
            stdout("pushbridge sandbox listening on http://\(ProxyConfiguration.ListenAddress(host: o.host, port: Int(port))) (state: \(o.dbPath ?? "in memory"))\n")
        }, until: SignalWaiter.waitForTermination)
        return 0
    }

    /// Serves a sandbox for `options` until `stop` returns, then stops gracefully. `ready`
    /// gets the bound port once the server listens; `log` gets one access line per request.
    public static func serve(_ options: Options, log: EventLog? = nil, ready: (UInt16) -> Void = { _ in }, until stop: () async -> Void) async throws {
        let service = try makeService(seedPath: options.seedPath, dbPath: options.dbPath)
        var configuration = HTTPServerConfiguration()
        configuration.host = options.host
        configuration.port = options.port
        let handler: HTTPHandler = { request in
            let started = ContinuousClock.now
            let response = await service.handle(request)
            let elapsed = ContinuousClock.now - started
            log?.info("request", ["method": .string(request.method), "path": .string(request.path), "status": .int(Int64(response.status)),
                                  "duration_ms": .double(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)])
            return response
        }
        let server = try HTTPServer(configuration: configuration, handler: handler)
        ready(server.port)
        await stop()
        await server.stop()
    }
}
