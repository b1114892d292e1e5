import Dispatch
import Synchronization

/// Automatic rollback of rollouts: one ``RolloutWindow`` per app in `rollout`, fed with each
/// OpenPush outcome of its new starts; a window crossing a readiness threshold rolls the app
/// back. The state lives in the audit database (``AuditReader/rollbacks()``), read again
/// every ``refreshInterval``, so every instance sharing a PostgreSQL audit sends the app's new
/// starts to the legacy provider, and `pushbridge rollout resume` in another process reaches
/// the running ones. Every statement on the audit database runs on the monitor's own serial
/// queue, never on the caller's thread: a rollback tripped by a request on an event loop is
/// written there after the request moved on (callers that wait are resumed by continuations).
public final class RolloutMonitor: Sendable {
    /// How often the shared state is read again.
    public static let refreshInterval: Duration = .seconds(1)

    private struct State: Sendable {
        var windows: [String: RolloutWindow] = [:]
        var rolledBack: [String: RolloutRollback] = [:]
        /// Apps this instance rolled back whose row may not be committed yet: a refresh keeps them.
        var saving: Set<String> = []
        var rollbacks: [String: UInt64] = [:]
    }

    private let state = Mutex(State())
    private let store: AuditReader?
    private let instance: String?
    private let log: EventLog
    private let refresher = Mutex<PeriodicTask?>(nil)
    /// The stage history its rollbacks and resumes are recorded in (and the reloads and
    /// start-up of the runtime that owns it).
    public let history: StageHistory
    /// The one queue the store's statements run on, in order.
    private let queue = DispatchQueue(label: "pushbridge-rollout-monitor")

    /// A monitor keeping its state in `store` (nil: this process only, for tests and tools);
    /// `now` stamps the stage changes it records (Unix ms).
    public init(store: AuditReader?, instance: String?, log: EventLog, now: @escaping @Sendable () -> Int64 = { AuditClock.nowMilliseconds() }) {
        self.store = store
        self.instance = instance
        self.log = log
        history = StageHistory(store: store, instance: instance, log: log, now: now)
        queue.sync { readStored() }
    }

    /// Starts reading the shared state every ``refreshInterval``.
    public func start() {
        guard store != nil else { return }
        let task = PeriodicTask(every: Self.refreshInterval, clock: SystemDeliveryClock()) { [self] in await refresh() }
        refresher.withLock { $0 = task }
    }

    /// Stops reading the shared state, once every rollback queued and every stage change
    /// handed to the history is written.
    public func stop() async {
        await refresher.withLock { task in defer { task = nil }; return task }?.stop()
        await written()
        await history.flush()
    }

    /// The app's rollback, when its rollout is rolled back.
    public func rollback(of app: String) -> RolloutRollback? { state.withLock { $0.rolledBack[app] } }

    /// Rollbacks this instance made, per app (`pushbridge_rollout_rollbacks_total`).
    public var rollbackCounts: [String: UInt64] { state.withLock { $0.rollbacks } }

    /// Adds one OpenPush outcome of a new start of `app` (in rollout); rolls the app back when
    /// its window crosses a threshold. A rolled-back app's outcomes are not counted.
    func record(app: String, _ sample: RolloutWindow.Sample, thresholds: ReadinessThresholds) {
        let tripped: RolloutRollback? = state.withLock { state in
            guard state.rolledBack[app] == nil else { return nil }
            guard let crossing = state.windows[app, default: RolloutWindow()].add(sample, thresholds: thresholds) else { return nil }
            let rollback = RolloutRollback(app: app, at: sample.at, threshold: crossing.threshold, evidence: crossing.evidence, instance: instance)
            state.rolledBack[app] = rollback
            state.windows[app] = nil
            state.saving.insert(app)
            state.rollbacks[app, default: 0] += 1
            return rollback
        }
        guard let tripped else { return }
        history.rollback(tripped)
        log.error("ROLLOUT ROLLED BACK: app \(app)'s new starts go to the legacy provider until `pushbridge rollout resume \(app)` or a reload that changes its rollout; activities already on OpenPush stay there",
                  ["app": .string(app), "threshold": .string(tripped.threshold), "evidence": .string(tripped.evidence)])
        queue.async { [self] in
            do {
                try store?.saveRollback(tripped)
            } catch {
                log.error("the rollback could not be written to the audit database; it holds on this instance only", ["app": .string(app), "error": .string("\(error)")])
            }
            state.withLock { _ = $0.saving.remove(app) }
        }
    }

    /// Resumes once every statement queued before the call has run (a rollback written).
    func written() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
    }

    /// Resumes `app`'s rollout here and in the audit database (a reload changed its rollout);
    /// true when it was rolled back.
    @discardableResult
    func resume(app: String) -> Bool {
        let was = state.withLock { state in
            state.windows[app] = nil
            return state.rolledBack.removeValue(forKey: app) != nil
        }
        // A reload's (on the SIGHUP queue or a task, never a loop), in order after any save.
        return queue.sync {
            do {
                let stored = try store?.clearRollback(app: app) ?? false
                if was || stored { history.resume(app, why: "a reload changed its rollout") }
                return was || stored
            } catch {
                log.error("the rollback could not be cleared in the audit database", ["app": .string(app), "error": .string("\(error)")])
                return was
            }
        }
    }

    /// Reads the shared state on the monitor's queue (see ``readStored()``).
    func refresh() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                readStored()
                done.resume()
            }
        }
    }

    /// Reads the shared state: rollbacks made by other instances arrive (and are logged),
    /// resumed ones leave. Runs on ``queue``.
    private func readStored() {
        guard let store else { return }
        let stored: [RolloutRollback]
        do { stored = try store.rollbacks() } catch { return }
        let arrived: [RolloutRollback] = state.withLock { state in
            var next = Dictionary(stored.map { ($0.app, $0) }, uniquingKeysWith: { first, _ in first })
            for app in state.saving { next[app] = state.rolledBack[app] }
            let arrived = next.values.filter { state.rolledBack[$0.app] == nil }
            for app in next.keys where state.rolledBack[app] == nil { state.windows[app] = nil }
            for app in state.rolledBack.keys where next[app] == nil { state.windows[app] = nil }
            for app in state.rolledBack.keys where next[app] == nil { history.noteRollback(of: app, rolledBack: false) }
            state.rolledBack = next
            return arrived.sorted { $0.app < $1.app }
        }
        for r in arrived { history.noteRollback(of: r.app, rolledBack: true) }
        for r in arrived {
            log.error("ROLLOUT ROLLED BACK: app \(r.app)'s new starts go to the legacy provider (the audit database says so) until `pushbridge rollout resume \(r.app)` or a reload that changes its rollout",
                      ["app": .string(r.app), "threshold": .string(r.threshold), "evidence": .string(r.evidence), "since": .string(RFC3339.format(milliseconds: r.at)),
                       "by": .string(r.instance ?? "unnamed instance")])
        }
    }
}
