import Foundation
import Synchronization
@testable import PushBridgeServer
#if canImport(Glibc)
import Glibc
#endif

/// Several real `pushbridge serve` processes (`a`, `b`, `c`, …) on one PostgreSQL database
/// of the test cluster, in front of one recording upstream. Every process is killed when the
/// fleet is shut down (``shutDown()``), however the test ended.
final class InstanceFleet: Sendable {
    let directory: URL
    /// The shared database.
    let uri: String
    let upstream: RecordingSandbox
    /// When each upstream request arrived (`ContinuousClock` instants, this process's clock).
    private let arrivals = Collected<(ContinuousClock.Instant, String)>()
    private let processes = Mutex<[String: ServeProcess]>([:])
    /// What every instance runs (``config(_:)`` adds its upstream, database and name);
    /// ``reconfigure(_:)`` changes it.
    private let configuration: Mutex<TestConfiguration>

    /// What a fleet runs unless told otherwise: the standard apps (`pw` with the tests'
    /// segment map), heartbeats every 200 ms, an instance dead after 1.5 s.
    static var standard: TestConfiguration {
        TestConfiguration(upstream: nil).with {
            $0.app("pw") { $0.segmentMap = TestApp.pushwooshSegmentMap }
            $0.instances = .init(heartbeatMs: 200, deadAfterMs: 1500)
            $0.limits.upstreamTimeoutMs = 5000
            $0.limits.upstreamConnectTimeoutMs = 1000
        }
    }

    /// A fleet running `configuration` (its OpenPush, audit and instance names are the
    /// fleet's); `upstreamDelay` is added before each upstream answer; `upstreamAdvance` seconds
    /// pass on the sandbox's clock per request (0: frozen, its 60-a-minute limit counts every send);
    /// `startDelay` holds each start before OpenPush handles it (a start still in flight there).
    init(configuration: TestConfiguration = InstanceFleet.standard, upstreamDelay: Duration = .zero, upstreamAdvance: Int64 = 2,
         startDelay: Duration = .zero) throws {
        self.configuration = Mutex(configuration)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        uri = try PostgresTestCluster.start().makeDatabase()
        let arrivals = arrivals
        upstream = try RecordingSandbox(advancePerRequest: upstreamAdvance, behaviour: { request in
            arrivals.append((ContinuousClock.now, request.path))
            // A start in flight for `startDelay` is the behaviour asked for (an update through the other
            // instance races it); nothing the test could wait on tells when that update is waiting.
            if startDelay > .zero, request.path.contains("/activities/activity/") { try? await Task.sleep(for: startDelay) }
            return nil
        }, beforeAnswering: { _ in
            // A slow upstream is the behaviour these tests ask for (sends in flight when an
            // instance is killed), so its answer is delayed on purpose.
            if upstreamDelay > .zero { try? await Task.sleep(for: upstreamDelay) }
        })
    }

    /// The older shape: `delivery` and `instances` are the JSON objects of those keys, `apps`
    /// replaces the standard apps and `topExtra` adds top-level members (each starting with
    /// a comma). New tests pass a ``TestConfiguration``.
    convenience init(delivery: String, instances: String = #"{"heartbeat_ms": 200, "dead_after_ms": 1500}"#, upstreamDelay: Duration = .zero,
                     apps: String? = nil, topExtra: String = "") throws {
        var configuration = Self.standard
        configuration.fragments = try .init(limits: "{}", topExtra: topExtra, pushwooshExtra: "", oneSignalExtra: "", apps: apps)
        configuration.fragments.top["delivery"] = .object(try TestConfiguration.Fragments.object(delivery))
        configuration.fragments.top["instances"] = .object(try TestConfiguration.Fragments.object(instances))
        try self.init(configuration: configuration, upstreamDelay: upstreamDelay)
    }

    /// The configuration of instance `name`.
    func config(_ name: String) -> TestConfiguration {
        configuration.withLock { $0 }.with {
            $0.openPush = upstream.baseURL
            $0.auditDatabase = uri
            $0.instanceName = name
        }
    }

    /// Starts instance `name` and waits until it listens.
    @discardableResult
    func start(_ name: String) async throws -> ServeProcess {
        let path = directory.appendingPathComponent("\(name).json").path
        try config(name).write(to: path)
        let process = try await ServeProcess.start(config: path, environment: ProxyHarness.environment, logPath: directory.appendingPathComponent("\(name).log").path)
        processes.withLock { $0[name] = process }
        return process
    }

    /// Changes every running instance's configuration with `edit` and sends it SIGHUP;
    /// returns once each has logged that it reloaded.
    func reconfigure(_ edit: (inout TestConfiguration) -> Void) async throws {
        configuration.withLock { edit(&$0) }
        let running = processes.withLock { $0 }
        for (name, process) in running {
            let before = log(name).components(separatedBy: "configuration reloaded").count
            try config(name).write(to: directory.appendingPathComponent("\(name).json").path)
            Glibc.kill(process.process.processIdentifier, SIGHUP)
            let reloaded = await eventually(30) { self.log(name).components(separatedBy: "configuration reloaded").count > before }
            guard reloaded else { throw FleetError.notReloaded(name) }
        }
    }

    /// ``reconfigure(_:)`` with `apps` (JSON text) replacing the apps (older call sites).
    func reconfigure(apps new: String) async throws {
        let apps = try TestConfiguration.Fragments(limits: "{}", topExtra: "", pushwooshExtra: "", oneSignalExtra: "", apps: new).appsArray
        try await reconfigure { $0.fragments.appsArray = apps }
    }

    /// What a fleet could not do.
    enum FleetError: Error { case notReloaded(String) }

    /// The running instance `name`.
    func instance(_ name: String) -> ServeProcess? { processes.withLock { $0[name] } }

    /// SIGKILL to instance `name`, waiting for its exit.
    func kill(_ name: String) async throws {
        guard let process = processes.withLock({ $0.removeValue(forKey: name) }) else { return }
        try await process.killHard()
    }

    /// Stops every instance still running (SIGTERM), killing any that does not exit, and
    /// removes the fleet's folder (configurations and logs).
    func shutDown() async {
        let all = processes.withLock { p in defer { p.removeAll() }; return Array(p.values) }
        for process in all { _ = try? await process.terminate() }
        await upstream.server.stop(gracePeriod: .seconds(1))
        try? FileManager.default.removeItem(at: directory)
    }

    /// The log of instance `name`.
    func log(_ name: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
    }

    /// When the upstream received each request to `path`, in order.
    func arrivals(at path: String) -> [ContinuousClock.Instant] {
        arrivals.all.filter { $0.1 == path }.map(\.0).sorted()
    }

    /// The first value of one SQL query on the shared database (nil for NULL).
    func value(_ sql: String, _ parameters: [String?] = []) throws -> String? {
        try PostgresConnection(uri).execute(sql, parameters).value(0, 0)
    }

    /// `count(*)` of the audit's requests matching `condition`.
    func count(_ condition: String = "TRUE", _ parameters: [String?] = []) throws -> Int {
        Int(try value("SELECT count(*) FROM requests WHERE \(condition)", parameters) ?? "") ?? -1
    }
}
