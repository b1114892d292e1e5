import Foundation
import Synchronization
@testable import PushBridgeServer

/// A throwaway PostgreSQL cluster for the tests: Debian's `initdb` and `pg_ctl`, run as the
/// `postgres` user on a data directory in a temporary folder, listening on 127.0.0.1 and a
/// free port. Started once per test process, on first use, and stopped when the process
/// exits. It never skips: a test that needs it fails with the reason it could not start.
final class PostgresTestCluster: Sendable {
    /// The folder holding the data directory, the socket and the server log.
    let directory: URL
    /// The port it listens on.
    let port: Int
    private let binaries: URL
    private let databases = Atomic<Int>(0)

    private static let shared = Mutex<Result<PostgresTestCluster, TestClusterError>?>(nil)
    /// The started cluster, for the exit handler (set once, under `shared`'s lock).
    private nonisolated(unsafe) static var running: PostgresTestCluster?

    /// Why the cluster could not start, with the output of the step that failed.
    struct TestClusterError: Error, CustomStringConvertible {
        var description: String
    }

    /// The cluster, started on first use.
    static func start() throws -> PostgresTestCluster {
        try shared.withLock { state in
            if let state { return try state.get() }
            let result = Result { () throws(TestClusterError) -> PostgresTestCluster in try PostgresTestCluster() }
            state = result
            if case .success(let cluster) = result {
                running = cluster
                atexit { PostgresTestCluster.running?.stop() }
            }
            return try result.get()
        }
    }

    /// A cluster of its own, for a test that restarts or stops its server; the test stops it.
    static func startPrivate() throws -> PostgresTestCluster {
        try PostgresTestCluster()
    }

    private init() throws(TestClusterError) {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap(Int.init).max() else {
            throw TestClusterError(description: "PostgreSQL is not installed (/usr/lib/postgresql is empty): run make deps-test")
        }
        binaries = URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
        directory = URL(fileURLWithPath: "/tmp/pushbridge-pg-\(UUID().uuidString.prefix(8))")
        port = Self.freePort()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Self.run("/bin/chown", ["postgres:postgres", directory.path])
            try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", binaries.appendingPathComponent("initdb").path, "-D", dataPath,
                                                "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
            try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", binaries.appendingPathComponent("pg_ctl").path, "-D", dataPath, "-o", options,
                                                "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "60", "start"])
        } catch {
            let log = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            throw TestClusterError(description: "the test PostgreSQL cluster did not start: \(error)\n\(log)")
        }
    }

    private var dataPath: String { directory.appendingPathComponent("data").path }

    private var options: String {
        "-c listen_addresses=127.0.0.1 -p \(port) -k \(directory.path) -c fsync=off -c max_connections=200 -c shared_buffers=32MB"
    }

    /// A URI for the cluster's `postgres` database (no password: trust on loopback).
    var adminURI: String { "postgresql://postgres@127.0.0.1:\(port)/postgres" }

    /// A new empty database of its own for one test; its URI.
    func makeDatabase() throws -> String {
        let name = "pb_test_\(ProcessInfo.processInfo.processIdentifier)_\(databases.add(1, ordering: .relaxed).newValue)"
        try PostgresConnection(adminURI).execute("CREATE DATABASE \(name)")
        return "postgresql://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// Restarts the server (a fast shutdown, which ends every connection, then a start on the
    /// same port); returns once it accepts connections again.
    func restart() throws {
        try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", binaries.appendingPathComponent("pg_ctl").path, "-D", dataPath, "-m", "fast", "-w", "-t", "60", "restart"])
    }

    /// Stops the server (fast shutdown) and returns once it is down; ``resume()`` undoes it.
    func pause() throws {
        try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", binaries.appendingPathComponent("pg_ctl").path, "-D", dataPath, "-m", "fast", "-w", "stop"])
    }

    /// Starts a server stopped by ``pause()`` with its original options.
    func resume() throws {
        try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", binaries.appendingPathComponent("pg_ctl").path, "-D", dataPath, "-o", options,
                                           "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "60", "start"])
    }

    /// Stops the server at once and removes its folder.
    func stop() {
        try? Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", binaries.appendingPathComponent("pg_ctl").path, "-D", dataPath, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs a set-up command through `/bin/sh` with its output in a file, not a pipe (the
    /// server `pg_ctl` starts would hold a pipe open for its whole life), and waits for it;
    /// throws with the output when it fails. The words are fixed paths and options of ours,
    /// each single-quoted.
    private static func run(_ path: String, _ arguments: [String]) throws(TestClusterError) {
        let outputPath = "/tmp/pushbridge-pg-step-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let words = ([path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let status = system(words.joined(separator: " ") + " </dev/null >'\(outputPath)' 2>&1")
        guard status == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw TestClusterError(description: "\(([path] + arguments).joined(separator: " ")) exited with status \(status): \(text)")
        }
    }

    /// A port nothing listens on now (bound to 127.0.0.1:0, read back, closed).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
