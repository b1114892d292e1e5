import Dispatch
import Synchronization

/// The one writer of the `stage_changes` history: every stage or percent change, rollback,
/// resume and legacy removal a running proxy makes or applies. Each change is logged at once
/// and written on the history's own serial queue, never on an event loop; a write that fails
/// is logged and the proxy goes on. It keeps the stage of every app in force, so a reload is
/// recorded as the difference from what ran before it.
public final class StageHistory: Sendable {
    private let store: AuditReader?
    private let instance: String?
    private let log: EventLog
    private let now: @Sendable () -> Int64
    private let queue = DispatchQueue(label: "pushbridge.stage-history")
    /// The stages in force and their configuration's fingerprint.
    private let current = Mutex<(entries: [StageDiff.Entry], fingerprint: String?)>(([], nil))

    /// A history written to `store` (nil: logged only), its rows naming `instance`, stamped by `now` (Unix ms).
    public init(store: AuditReader?, instance: String?, log: EventLog, now: @escaping @Sendable () -> Int64 = { AuditClock.nowMilliseconds() }) {
        self.store = store
        self.instance = instance
        self.log = log
        self.now = now
    }

    /// At start-up: records each app whose stage differs from the last one recorded for it.
    func startUp(_ configuration: ProxyConfiguration, fingerprint: String, rolledBack: (String) -> Bool) {
        let entries = StageDiff.entries(configuration, rolledBack: rolledBack)
        current.withLock { $0 = (entries, fingerprint) }
        let at = now(), instance = instance
        queue.async { [self] in
            let last: [String: StageChange]
            do { last = try store?.latestStageChanges() ?? [:] } catch {
                log.error("the stage history could not be read at start-up; the stages in force are recorded again", ["error": .string("\(error)")])
                last = [:]
            }
            write(StageDiff.startUp(entries, last: last, at: at, instance: instance, fingerprint: fingerprint))
        }
    }

    /// At a reload: records what the new configuration changes per app.
    func reload(_ configuration: ProxyConfiguration, fingerprint: String, rolledBack: (String) -> Bool) {
        let entries = StageDiff.entries(configuration, rolledBack: rolledBack)
        let old = current.withLock { state in defer { state = (entries, fingerprint) }; return state.entries }
        let changes = StageDiff.reload(from: old, to: entries, at: now(), instance: instance, fingerprint: fingerprint)
        queue.async { [self] in write(changes) }
    }

    /// The rollout of `rollback.app` was rolled back here.
    func rollback(_ rollback: RolloutRollback) {
        change(rollback.app, .rollback, rolledBack: true, at: rollback.at, detail: "\(rollback.threshold): \(rollback.evidence)")
    }

    /// The rollout of `app` was resumed here (`why` says by what).
    func resume(_ app: String, why: String) {
        change(app, .resume, rolledBack: false, at: now(), detail: why)
    }

    /// Another instance or `rollout resume` changed the rollback state of `app`: remembered, not recorded again.
    func noteRollback(of app: String, rolledBack: Bool) {
        current.withLock { state in
            for i in state.entries.indices where state.entries[i].app == app && state.entries[i].stage.percent != nil { state.entries[i].stage.rolledBack = rolledBack }
        }
    }

    /// Waits until every change handed to the history so far is written.
    public func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
    }

    private func change(_ app: String, _ kind: StageChange.Kind, rolledBack: Bool, at: Int64, detail: String) {
        let (before, fingerprint): (AppStage?, String?) = current.withLock { state in
            guard let i = state.entries.firstIndex(where: { $0.app == app }) else { return (nil, state.fingerprint) }
            defer { state.entries[i].stage.rolledBack = rolledBack }
            return (state.entries[i].stage, state.fingerprint)
        }
        var after = before
        after?.rolledBack = rolledBack
        let row = StageChange(at: at, app: app, kind: kind, stage: after, previous: before?.summary, detail: detail, instance: instance, fingerprint: fingerprint)
        queue.async { [self] in write([row]) }
    }

    /// Logs and stores `changes`, in order (on the queue).
    private func write(_ changes: [StageChange]) {
        for change in changes {
            log.info("stage change", ["app": .string(change.app), "kind": .string(change.kind.rawValue), "stage": .string(change.stageText),
                                      "previous": .string(change.previous ?? "none"), "detail": .string(change.detail),
                                      "fingerprint": .string(change.fingerprint ?? "none")])
            do {
                try store?.insertStageChange(change)
            } catch {
                log.error("the stage change could not be written to the audit database", ["app": .string(change.app), "kind": .string(change.kind.rawValue), "error": .string("\(error)")])
            }
        }
    }
}
