import Foundation
import PushBridgeCore

/// Builds and serves a sandbox: what `pushbridge sandbox` and the proxy's embedded sandbox run.
public enum SandboxLauncher {
    /// Where and how a sandbox serves.
    public struct Options: Sendable, Equatable {
        /// Bind address.
        public var host = "127.0.0.1"
        /// Bind port (0 picks one).
        public var port: UInt16 = 4100
        /// Seed file.
        public var seedPath: String?
        /// SQLite database file; in-memory state when nil.
        public var dbPath: String?

        /// Defaults: 127.0.0.1:4100, no seed, in memory.
        public init(host: String = "127.0.0.1", port: UInt16 = 4100, seedPath: String? = nil, dbPath: String? = nil) {
            self.host = host
            self.port = port
            self.seedPath = seedPath
            self.dbPath = dbPath
        }
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

    /// The recorded sends of the sandbox database at `dbPath` (which must exist), for `app` or all.
    public static func sends(dbPath: String, app: String?) throws -> [JSONObject] {
        try makeService(seedPath: nil, dbPath: ExistingFile.require(dbPath, what: "sandbox file")).sends(app: app)
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

    /// The store for a database path: SQLite when given, in memory when nil.
    static func makeStore(dbPath: String?) throws -> any SandboxStore {
        guard let dbPath else { return MemorySandboxStore() }
        return try SQLiteSandboxStore(path: dbPath)
    }
}
