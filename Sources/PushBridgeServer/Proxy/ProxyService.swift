import Foundation
import PushBridgeCore

/// The proxy's request handler: the operations endpoints, then the request pipeline
/// (``handle(_:)`` in `ProxyService+Pipeline.swift` composes its stages). Mount `handler` on
/// an `HTTPServer`.
public final class ProxyService: Sendable {
    /// What the pipeline uses.
    public struct Dependencies: Sendable {
        /// The apps and legacy URLs, swapped whole on reload.
        public var snapshots: ProxySnapshotBox
        /// Paces, sends and retries to OpenPush.
        public var delivery: OpenPushDelivery
        /// The audit.
        public var audit: AuditStore
        /// Warning and access lines.
        public var log: EventLog
        /// Prometheus metrics.
        public var metrics: Metrics
        /// Unix milliseconds now.
        public var clock: @Sendable () -> Int64
        /// Sends original requests to legacy providers (observe, shadow).
        public var legacy: LegacyForwarder
        /// Runs shadows in the background.
        public var shadows: ShadowQueue
        /// One shadow call's deadline.
        public var shadowTimeout: Duration
        /// The embedded sandbox's base URL, for shadows sent to `"sandbox"`.
        public var sandboxBaseURL: String?
        /// Stores and later sends scheduled starts; nil refuses them.
        public var scheduler: StartScheduler?
        /// The audit's disk use, reported on `/healthz`; nil leaves it out.
        public var diskGuard: AuditDiskGuard?
        /// Rolls rollouts back when their OpenPush window crosses ``rolloutThresholds``; nil: never.
        public var rollouts: RolloutMonitor?
        /// The readiness thresholds a rollout's window is judged by.
        public var rolloutThresholds: ReadinessThresholds
        /// The server's handler deadline (``ProxyConfiguration/handlerDeadline``): how long an
        /// answer may wait for its audit completion is what it leaves; nil: a fixed 1.5 s.
        public var handlerDeadline: Duration?

        /// Dependencies.
        public init(snapshots: ProxySnapshotBox, delivery: OpenPushDelivery, audit: AuditStore, log: EventLog, metrics: Metrics,
                    clock: @escaping @Sendable () -> Int64, legacy: LegacyForwarder, shadows: ShadowQueue,
                    shadowTimeout: Duration = .seconds(5), sandboxBaseURL: String? = nil, scheduler: StartScheduler? = nil,
                    diskGuard: AuditDiskGuard? = nil, rollouts: RolloutMonitor? = nil, rolloutThresholds: ReadinessThresholds = ReadinessThresholds(),
                    handlerDeadline: Duration? = nil) {
            self.handlerDeadline = handlerDeadline
            self.diskGuard = diskGuard
            self.rollouts = rollouts
            self.rolloutThresholds = rolloutThresholds
            self.snapshots = snapshots
            self.delivery = delivery
            self.audit = audit
            self.log = log
            self.metrics = metrics
            self.clock = clock
            self.legacy = legacy
            self.shadows = shadows
            self.shadowTimeout = shadowTimeout
            self.sandboxBaseURL = sandboxBaseURL
            self.scheduler = scheduler
        }
    }

    let deps: Dependencies
    /// Audit completions retried in the background after their answer left.
    let lateCompletions: AuditLateCompletions
    /// The mode stages, made once.
    let modes: Modes
    /// The placement stage.
    let router: Router

    /// A service.
    public init(_ dependencies: Dependencies) {
        deps = dependencies
        lateCompletions = AuditLateCompletions(audit: dependencies.audit, log: dependencies.log)
        let d = dependencies
        let begin = AuditBegin(audit: d.audit, log: d.log, metrics: d.metrics, clock: d.clock)
        let schedule = ScheduleMode(scheduler: d.scheduler, log: d.log, clock: d.clock)
        let openPush = OpenPushMode(audit: begin, delivery: d.delivery, schedule: schedule, log: d.log, metrics: d.metrics, clock: d.clock)
        modes = Modes(openPush: openPush, legacy: LegacyMode(audit: begin, legacy: d.legacy, log: d.log, clock: d.clock),
                      shadow: ShadowMode(primary: openPush, queue: d.shadows, delivery: d.delivery, legacy: d.legacy, audit: d.audit, log: d.log,
                                         clock: d.clock, timeout: d.shadowTimeout, sandboxBaseURL: d.sandboxBaseURL),
                      clock: d.clock, rollouts: d.rollouts, rolloutThresholds: d.rolloutThresholds)
        router = Router(activities: d.audit.activities, log: d.log, clock: d.clock, rollouts: d.rollouts, metrics: d.metrics)
    }

    /// Audit completions not written yet (retried in the background).
    public var lateCompletionCount: Int { lateCompletions.count }

    /// Stops the background retries after one last round; call before the audit closes.
    /// Returns how many completions are still not written (their rows stay `pending` for the
    /// start-up reconciliation).
    @discardableResult
    public func stopLateCompletions() async -> Int {
        await lateCompletions.stop()
    }

    /// The handler to mount on an `HTTPServer`.
    public var handler: HTTPHandler { { [self] request in await self.handle(request) } }

    /// `/healthz` and `/metrics` (its in-flight activities read from the ledger at each
    /// scrape); nil for any other path.
    func operations(_ request: HTTPRequest) async -> HTTPResponse? {
        switch request.path {
        case "/healthz":
            return health()
        case "/metrics":
            deps.metrics.setAuditQueueDepth(deps.audit.queueDepth)
            if let counts = try? await deps.audit.activities.inFlightCounts(now: deps.clock()) {
                deps.metrics.setActivitiesInFlight(counts, apps: deps.snapshots.snapshot.directory.apps.map(\.name))
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: Array(deps.metrics.render().utf8))
        default:
            return nil
        }
    }

    /// `/healthz`: 200 while the proxy serves; `status` is `warning`, with the reasons in
    /// `warnings`, when the audit is past its size ceiling or its disk under its free floor;
    /// 503 `unhealthy` while the audit's PostgreSQL cannot be reached (a load balancer drains
    /// the instance until it can).
    private func health() -> HTTPResponse {
        guard deps.audit.isReachable else {
            return .json(503, .object(["status": .string("unhealthy"), "reason": .string("the audit database cannot be reached")]))
        }
        var fields: [(String, JSONValue)] = [("status", .string("ok")), ("audit_queue_depth", .int(Int64(deps.audit.queueDepth)))]
        if let disk = deps.diskGuard?.read() {
            if !disk.warnings.isEmpty {
                fields[0].1 = .string("warning")
                fields.append(("warnings", .array(disk.warnings.map(JSONValue.string))))
            }
            fields += [("audit_used_bytes", .int(disk.usedBytes)), ("audit_free_bytes", .int(disk.freeBytes))]
        }
        return .json(200, .object(JSONObject(members: fields.map { JSONMember($0.0, $0.1) })))
    }
}
