/// Keeps the activity ledger bounded while the proxy runs: forgets every activity past its
/// lifetime (``ActivityRecord/lifetimeMs`` after its start, when nothing can reach it any
/// more), then, for each source app with more than ``Settings/maxActivities`` rows, that
/// app's oldest starts beyond the cap (the cap is per app).
///
/// It works like the audit's retention (``AuditRetention``), beside it in ``AuditUpkeep``: a
/// pass picks a small batch of candidates on its own read connection and deletes it; on SQLite
/// as one background operation of the audit writer (a transaction of its own, after the
/// request batches queued before it), on PostgreSQL on its own connection. Between batches it
/// rests twice as long as the batch took. A delete names each row by app and id and keeps one
/// started again since it was picked.
public final class ActivityLedgerUpkeep: Sendable {
    /// How the upkeep runs. Every value has a documented default.
    public struct Settings: Sendable, Equatable {
        /// Rows the ledger keeps at most per source app (`limits.max_activities`). Default 1,000,000 (about
        /// 300 MB of SQLite pages with their indexes, measured: ~290 bytes a row).
        public var maxActivities = 1_000_000
        /// Rows per delete. Default 500 (ledger rows are small: a few milliseconds of the writer).
        public var batchSize = 500
        /// Time between passes. Default 1 minute.
        public var interval: Duration = .seconds(60)
        /// After each batch the pass rests this many times as long as the batch took. Default 2.
        public var restFactor = 2
        /// The defaults.
        public init() {}
    }

    /// What one pass forgot.
    public struct Pass: Sendable, Equatable {
        /// Activities past their lifetime.
        public var expired = 0
        /// Activities over the cap (the oldest starts).
        public var overCap = 0
    }

    private let settings: Settings
    private let store: AuditStore
    private let candidates: AuditReader
    private let clock: any DeliveryClock
    private let onPass: @Sendable (Pass) -> Void
    private let passes = BackgroundPasses()

    /// The upkeep of `store`'s ledger on its own read connection. `clock` decides what "now"
    /// is (tests move a ``ManualDeliveryClock``); `onPass` is told what each pass forgot.
    public init(store: AuditStore, settings: Settings, clock: any DeliveryClock, onPass: @escaping @Sendable (Pass) -> Void = { _ in }) throws(AuditError) {
        self.settings = settings
        self.store = store
        self.candidates = try AuditReader(path: store.path, busyTimeout: store.configuration.busyTimeout)
        self.clock = clock
        self.onPass = onPass
    }

    /// Runs a pass now and then one every ``Settings/interval`` on the clock, until ``stop()``.
    /// A failing pass is reported through `onFailure` and retried at the next interval.
    public func start(onFailure: @escaping @Sendable (any Error) -> Void) {
        passes.start(every: settings.interval, clock: clock, onFailure: onFailure) { [self] in _ = try await pruneOnce() }
    }

    /// Stops the background passes (a batch being deleted finishes).
    public func stop() async {
        await passes.stop()
    }

    /// Forgets every activity past its lifetime, then, per source app over the cap, that
    /// app's oldest, batch by batch: a flood of one app never evicts another app's rows.
    @discardableResult
    public func pruneOnce() async throws -> Pass {
        let cutoff = clock.nowMilliseconds() - ActivityRecord.lifetimeMs
        let batch = max(1, settings.batchSize)
        var pass = Pass()
        pass.expired = try await BackgroundPasses.deleteInBatches(batchSize: batch, restFactor: settings.restFactor, next: { _ in
            try self.candidates.query(ActivityLedgerSQL.expiredSQL, [.integer(cutoff), .integer(Int64(batch))])
        }, delete: { try await self.delete($0, overCap: false) })
        let cap = max(0, settings.maxActivities)
        for row in try candidates.query(ActivityLedgerSQL.overCapAppsSQL, [.integer(Int64(cap))]) {
            guard let app = row.first?.textValue, let rows = row.last?.integerValue else { continue }
            let excess = Int(rows) - cap
            // Batches of the cap's size until the app's excess is gone (the last one short, which ends the pass).
            pass.overCap += try await BackgroundPasses.deleteInBatches(batchSize: batch, restFactor: settings.restFactor, next: { deleted in
                let wanted = min(batch, excess - deleted)
                return wanted > 0 ? try self.candidates.query(ActivityLedgerSQL.oldestOfAppSQL, [.text(app), .integer(Int64(wanted))]) : []
            }, delete: { try await self.delete($0, overCap: true) })
        }
        if pass != Pass() { onPass(pass) }
        return pass
    }

    /// Deletes one batch of candidate rows (``ActivityLedgerSQL/candidateColumns``): through
    /// the writer as background work on SQLite, on the upkeep's own connection on PostgreSQL.
    /// Rows over the cap that were still in flight are remembered first, per app, until their
    /// last could still be reached (readiness reads it: legacy is not switched off before).
    private func delete(_ rows: [[SQLiteValue]], overCap: Bool) async throws {
        var statements: [AuditStatement] = []
        if overCap {
            var forgotten: [String: (until: Int64, count: Int)] = [:]
            for row in rows where row.count == 5 && row[4].integerValue == 1 {
                guard let app = row[3].textValue, let started = row[2].integerValue else { continue }
                let until = started + ActivityRecord.lifetimeMs
                forgotten[app] = (max(forgotten[app]?.until ?? until, until), (forgotten[app]?.count ?? 0) + 1)
            }
            statements += forgotten.sorted { $0.key < $1.key }.map { ActivityLedgerSQL.forget(app: $0.key, inFlightUntil: $0.value.until, count: $0.value.count) }
        }
        let keys = rows.compactMap { row -> (openPushApp: String, activityId: String)? in
            guard let key = row[0].textValue, let id = row[1].textValue else { return nil }
            return (key, id)
        }
        statements.append(ActivityLedgerSQL.delete(keys, startedBy: rows.compactMap { $0[2].integerValue }.max() ?? 0))
        for statement in statements {
            if store.pool == nil {
                try await store.submit(.background(statement))
            } else {
                _ = try candidates.change(statement)
            }
        }
    }
}
