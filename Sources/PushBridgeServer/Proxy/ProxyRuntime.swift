import Foundation
import PushBridgeCore

/// A running proxy: the HTTP server, the upstream client, the audit, and (when configured) the
/// embedded OpenPush sandbox it forwards to. `start` builds it from a configuration; `stop`
/// stops accepting, lets in-flight requests finish within a grace period and flushes the audit.
public final class ProxyRuntime: Sendable {
    /// The proxy's server; nil when built with `listening: false`, where requests reach
    /// ``service`` directly (``ProxyService/handle(_:)``).
    public let server: HTTPServer?
    /// The embedded sandbox's server, when `sandbox.embedded`.
    public let sandboxServer: HTTPServer?
    /// The embedded legacy doubles, when a `legacy.<dialect>` is `"double"` at start.
    public let legacyDoubles: LegacyDoublesRunning?
    /// The audit.
    public let audit: AuditStore
    /// The upstream client.
    public let client: UpstreamClient
    /// The metrics.
    public let metrics: Metrics
    /// The OpenPush base URL in use.
    public let openPushBaseURL: String
    /// The apps, modes and legacy URLs in force; ``reload(_:)`` swaps them.
    public let snapshots: ProxySnapshotBox
    /// Sends scheduled starts at their time.
    public let scheduler: StartScheduler
    /// Paces sends per OpenPush app.
    public var pacer: any SendPacing { shared.pacer }
    /// The pacer, the scheduled starts and the instance registry.
    public let shared: SharedState
    let log: EventLog

    /// The admin listener (``AdminService``), which a reload can start, stop or re-key.
    public let admin: AdminListener
    /// The admin listener's server, when `admin` is configured.
    public var adminServer: HTTPServer? { admin.server }
    /// Audit retention and the disk guard, running in the background.
    public let upkeep: AuditUpkeep
    /// The request pipeline (its background audit completions are stopped with the runtime).
    public let service: ProxyService
    /// The rollouts' automatic rollback.
    public let rollouts: RolloutMonitor

    /// The configured apps in force.
    public var directory: AppDirectory { snapshots.snapshot.directory }

    private init(server: HTTPServer?, sandboxServer: HTTPServer?, legacyDoubles: LegacyDoublesRunning?, audit: AuditStore, client: UpstreamClient, metrics: Metrics, openPushBaseURL: String,
                 snapshots: ProxySnapshotBox, scheduler: StartScheduler, shared: SharedState, log: EventLog, admin: AdminListener,
                 upkeep: AuditUpkeep, service: ProxyService, rollouts: RolloutMonitor) {
        self.service = service
        self.rollouts = rollouts
        self.admin = admin
        self.upkeep = upkeep
        self.snapshots = snapshots
        self.scheduler = scheduler
        self.shared = shared
        self.log = log
        self.server = server
        self.sandboxServer = sandboxServer
        self.legacyDoubles = legacyDoubles
        self.audit = audit
        self.client = client
        self.metrics = metrics
        self.openPushBaseURL = openPushBaseURL
    }

    /// The port the proxy listens on (0 when it does not listen).
    public var port: UInt16 { server?.port ?? 0 }

    /// Starts everything the configuration names; throws with what failed to start. `clock`
    /// drives pacing and scheduled starts, `auditClock` audit retention and the disk checks
    /// (tests pass a ``ManualDeliveryClock`` to either). With `listening` false everything but
    /// the proxy's own listener starts: requests are handed to ``service`` in-process (tests).
    public static func start(_ file: ProxyConfiguration, log: EventLog, clock: any DeliveryClock = SystemDeliveryClock(),
                             auditClock: any DeliveryClock = SystemDeliveryClock(), listening: Bool = true) throws -> ProxyRuntime {
        // The legacy doubles start first: every "double" legacy endpoint becomes their URL.
        let legacyDoubles = try LegacyDoublesRunning.startIfNeeded(file)
        guard let configuration = LegacyDoublesRunning.resolve(file, with: legacyDoubles) else { throw StartError("the legacy doubles did not start") }
        var sandboxServer: HTTPServer?
        var sandboxService: SandboxService?
        var sandboxURL: String?
        let baseURL: String
        if configuration.sandbox.embedded {
            let service = try SandboxLauncher.makeService(seedPath: configuration.sandbox.seedPath, dbPath: nil,
                                                       rateWindowSeconds: configuration.sandbox.rateWindowSeconds)
            var sandboxHTTP = HTTPServerConfiguration()
            sandboxHTTP.host = configuration.sandbox.listen.host
            sandboxHTTP.port = UInt16(configuration.sandbox.listen.port)
            let server = try HTTPServer(configuration: sandboxHTTP, handler: service.handler)
            sandboxServer = server
            sandboxService = service
            sandboxURL = "http://\(ProxyConfiguration.ListenAddress(host: configuration.sandbox.listen.host, port: Int(server.port)))"
        }
        if let openPush = configuration.openPush {
            baseURL = openPush.baseURL
        } else if let sandboxURL {
            baseURL = sandboxURL
        } else {
            throw StartError("openpush.base_url is required unless sandbox.embedded is true")
        }
        let metrics = Metrics()
        var auditConfiguration = AuditStoreConfiguration()
        auditConfiguration.onCommit = { sample in metrics.observeAuditWrite(sample.transactionDuration) }
        auditConfiguration.instanceName = configuration.instanceName
        let audit = try AuditStore(path: configuration.auditDatabasePath, configuration: auditConfiguration)
        if audit.recoveredPendingCount > 0 {
            log.warning("audit rows left open by an earlier stop were marked unknown", ["count": .int(Int64(audit.recoveredPendingCount))])
        }
        let client = try UpstreamClient(configuration: configuration.upstreamClientConfiguration)
        metrics.sampleAuditQueueDepth { audit.queueDepth }
        let upkeep = try AuditUpkeep.start(audit: audit, limits: configuration.auditLimits, clock: auditClock, metrics: metrics, log: log)
        let snapshots = ProxySnapshotBox(ProxySnapshot(configuration))
        warnAboutAudiences(configuration, log: log)
        // Its own connection on SQLite, so a long report on the reader never holds a rollback up.
        let rollouts = RolloutMonitor(store: try audit.pool.map { _ in audit.reader } ?? AuditReader(path: audit.path, busyTimeout: auditConfiguration.busyTimeout),
                                      instance: configuration.instanceName, log: log, now: { clock.nowMilliseconds() })
        rollouts.history.startUp(configuration, fingerprint: configuration.stageFingerprint) { rollouts.rollback(of: $0) != nil }
        metrics.sampleRollouts {
            let counts = rollouts.rollbackCounts
            return snapshots.snapshot.directory.apps.filter { $0.modesInUse.contains(.rollout) }.map {
                Metrics.RolloutSeries(app: $0.name, rolledBack: rollouts.rollback(of: $0.name) != nil, rollbacks: counts[$0.name] ?? 0)
            }
        }
        let shared = try SharedState.make(configuration, instance: configuration.instanceName, log: log)
        let delivery = OpenPushDelivery(forwarder: OpenPushForwarder(client: client, baseURL: baseURL, clock: clock), pacer: shared.pacer, clock: clock,
                                        upstreamTimeout: configuration.limits.upstreamTimeout)
        let scheduler = StartScheduler(store: shared.starts, delivery: delivery, audit: audit, log: log) { name in
            snapshots.snapshot.app(named: name)?.openPushKey?.value
        }
        metrics.sampleFleet { [registry = shared.registry] in Metrics.fleetReading(overdue: scheduler.overdue, registry: registry) }
        let service = ProxyService(.init(snapshots: snapshots, delivery: delivery, audit: audit, log: log, metrics: metrics, clock: { clock.nowMilliseconds() },
                                         legacy: LegacyForwarder(client: client),
                                         shadows: ShadowQueue(limit: configuration.shadowQueue.limit, workers: configuration.shadowQueue.workers, metrics: metrics),
                                         shadowTimeout: configuration.shadowQueue.timeout, sandboxBaseURL: sandboxURL, scheduler: scheduler,
                                         diskGuard: upkeep.diskGuard, rollouts: rollouts, rolloutThresholds: configuration.readiness,
                                         handlerDeadline: configuration.handlerDeadline))
        var http = HTTPServerConfiguration()
        http.host = configuration.listen.host
        http.port = UInt16(configuration.listen.port)
        http.maxBodyBytes = configuration.limits.maxBodyBytes
        http.connectionLimit = configuration.limits.maxConnections
        http.perAddressConnectionLimit = configuration.limits.perIPConnections
        http.headerMemoryBytes = configuration.limits.headerMemoryBytes
        http.maxHeadBytes = configuration.limits.maxHeadBytes
        http.maxRequestTargetBytes = configuration.limits.maxRequestTargetBytes
        http.idleTimeout = configuration.limits.idleTimeout
        http.requestTimeout = configuration.limits.requestTimeout
        // A paced send may wait up to delivery.max_wait_ms for its slot, then make its attempts.
        http.handlerDeadline = configuration.handlerDeadline
        // Every answer the server makes itself leaves through the pipeline's exit.
        http.exit = service
        http.failureResponder = HTTPServerFailure.proxyResponder
        http.tls = configuration.tls?.certificate
        let server = listening ? try HTTPServer(configuration: http, handler: service.handler) : nil
        if listening, let tls = http.tls { logCertificate("serving tls", tls, listener: "listen", log: log) }
        let admin = try AdminListener(configuration, log: log) { [sandboxService] admin, configuration in
            AdminService(token: admin.token, reader: audit.reader, readiness: ReadinessSettings(configuration), sandbox: sandboxService,
                         ledger: audit.activities, snapshots: snapshots)
        }
        try shared.registry?.start()
        scheduler.start()
        rollouts.start()
        return ProxyRuntime(server: server, sandboxServer: sandboxServer, legacyDoubles: legacyDoubles, audit: audit, client: client, metrics: metrics, openPushBaseURL: baseURL,
                            snapshots: snapshots, scheduler: scheduler, shared: shared, log: log, admin: admin,
                            upkeep: upkeep, service: service, rollouts: rollouts)
    }

    /// Applies a reloaded configuration's apps, modes, shadows, legacy URLs, TLS certificates
    /// and `admin` (``AdminListener``: on, off, moved or re-keyed); requests in flight finish
    /// with the snapshot they started with. The proxy's listen address, limits, audit and
    /// delivery settings need a restart. A configuration that removes a `legacy.<dialect>` is
    /// first checked against the activity ledger (``reloadGuarded(_:generation:)``, which this
    /// starts and does not wait for); any other applies here.
    public func reload(_ file: ProxyConfiguration) {
        guard let configuration = LegacyDoublesRunning.resolve(file, with: legacyDoubles) else {
            logReloadFailure("(reloaded configuration)", file.legacy.doubled.map { "legacy.\($0.rawValue): \"double\" needs the legacy doubles, which start with serve when the file names them at start-up: restart to use them" })
            return
        }
        let generation = snapshots.generation
        guard legacyRemovals(configuration).isEmpty else {
            Task { await reloadGuarded(configuration, generation: generation) }
            return
        }
        apply(configuration, generation: generation)
    }

    /// Swaps in `configuration` (its legacy doubles resolved) unless another reload came first
    /// (the snapshot is no longer `generation`); false when it did.
    @discardableResult
    func apply(_ configuration: ProxyConfiguration, generation: UInt64) -> Bool {
        let before = snapshots.snapshot, after = ProxySnapshot(configuration)
        guard snapshots.replace(after, ifGeneration: generation) else {
            log.warning("configuration reload skipped: another reload was applied while this one was checked", [:])
            return false
        }
        Self.warnAboutAudiences(configuration, log: log)
        resumeChangedRollouts(from: before, to: configuration)
        rollouts.history.reload(configuration, fingerprint: configuration.stageFingerprint) { [rollouts] in rollouts.rollback(of: $0) != nil }
        let changes = Self.placementChanges(from: before, to: after)
        if !changes.isEmpty {
            let ledger = audit.activities, log = log
            Task { Self.logPlacementChanges(changes, counts: try? await ledger.inFlightCounts(now: AuditClock.nowMilliseconds()), log: log) }
        }
        reloadCertificates(configuration)
        admin.apply(configuration)
        log.info("configuration reloaded", ["apps": .int(Int64(configuration.apps.count))])
        warnAboutReach(moving: before, to: configuration)
        return true
    }

    func logReloadFailure(_ path: String, _ problems: [String]) {
        log.error("configuration reload failed; the running configuration stays", ["file": .string(path), "problems": .string(problems.joined(separator: "; "))])
    }

    static func warnAboutAudiences(_ configuration: ProxyConfiguration, log: EventLog) {
        for app in configuration.apps {
            if let warning = app.sameAudienceWarning { log.warning("SHADOW REACHES THE SAME PHONES AS THE PRIMARY: \(warning)", ["app": .string(app.name)]) }
            if let warning = app.twoActivitiesWarning { log.warning("ROLLOUT SENDS SEGMENT STARTS TO BOTH SIDES: \(warning)", ["app": .string(app.name)]) }
            if let warning = app.splitRoutesWarning { log.warning(warning, ["app": .string(app.name)]) }
        }
    }

    /// Graceful stop: stop accepting, finish in-flight requests within `gracePeriod`, flush the audit.
    public func stop(gracePeriod: Duration = .seconds(10)) async {
        await server?.stop(gracePeriod: gracePeriod)
        await scheduler.stop()
        await rollouts.stop()
        await admin.stop()
        await upkeep.stop()
        await shared.registry?.stop()
        client.shutdown()
        let unwritten = await service.stopLateCompletions()
        if unwritten > 0 { log.error("audit completions still not written at stop; their rows stay pending until the next start reconciles them", ["count": .int(Int64(unwritten))]) }
        if let failure = await audit.close() {
            log.warning("the audit's WAL was not checkpointed at stop; its rows are in the -wal beside the file until the next start", ["error": .string(failure)])
        }
        do {
            try await scheduler.store.checkpointAtStop()
        } catch {
            log.warning("the scheduler file's WAL was not checkpointed at stop; its starts are in the -wal beside the file until the next start", ["error": .string("\(error)")])
        }
        await sandboxServer?.stop(gracePeriod: .seconds(1))
        await legacyDoubles?.stop()
    }

    /// Why the runtime could not start.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
        init(_ d: String) { description = d }
    }
}
