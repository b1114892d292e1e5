/// Deletes audit rows older than the retention window while the proxy runs, so the audit does
/// not grow forever.
///
/// A pass picks the oldest rows past the window on its own read connection, a batch at a time.
/// On SQLite, which has one write lock, each batch goes to the audit writer as one background
/// operation: it runs in a transaction of its own, never together with request rows, and only
/// when no request operation is queued or after a couple of request batches went first
/// (``AuditStoreConfiguration/backgroundYieldBatches``), so a request waits behind at most one
/// small delete instead of the whole pass. On PostgreSQL a pass first drops each day
/// partition of the log past the window whole (``AuditPostgresPartitions/drop(before:on:)``);
/// what is left past it (rows of the DEFAULT partition, days holding rows still `pending` or
/// `scheduled`) is deleted batch by batch in a transaction on retention's own connection,
/// beside the writer's. Between batches the pass
/// rests twice as long as the batch took, so requests keep most of the writer (and of the
/// disk's syncs) while a large backlog goes. Rows still `pending` or `scheduled` stay; a row's
/// findings, shadow comparison and scheduled sends go with it (its attempts are columns of the
/// row).
///
/// Several instances on one audit file each prune it; SQLite's write lock serializes them and
/// a row already deleted is skipped, so they need no coordination.
public final class AuditRetention: Sendable {
    /// How retention runs. Every value has a documented default.
    public struct Settings: Sendable {
        /// Rows received more than this many days ago are deleted; `0` keeps every row.
        public var retentionDays: Int
        /// Rows per delete. Default 50: a few milliseconds of the writer's time, which is as
        /// long as a request row queued behind a running delete waits for it (200 rows took
        /// 25–55 ms on a loaded disk).
        public var batchSize = 50
        /// Time between passes. Default 10 minutes.
        public var interval: Duration = .seconds(600)
        /// After each batch the pass rests this many times as long as the batch took (from
        /// queueing to its durable commit), so that retention takes at most a third of the
        /// writer's time however slow the disk is. Default 2.
        public var restFactor = 2
        /// Settings with the given window.
        public init(retentionDays: Int) { self.retentionDays = retentionDays }
    }

    private let settings: Settings
    private let store: AuditStore
    private let candidates: AuditReader
    private let clock: any DeliveryClock
    private let onPruned: @Sendable (Int) -> Void
    private let passes = BackgroundPasses()

    /// Retention for `store` on its own read connection. `clock` decides what "now" is (tests
    /// move a ``ManualDeliveryClock``); `onPruned` is told each batch's deleted row count.
    public init(store: AuditStore, settings: Settings, clock: any DeliveryClock, onPruned: @escaping @Sendable (Int) -> Void = { _ in }) throws(AuditError) {
        self.settings = settings
        self.store = store
        self.candidates = try AuditReader(path: store.path, busyTimeout: store.configuration.busyTimeout)
        self.clock = clock
        self.onPruned = onPruned
    }

    /// Runs a pass now and then one every ``Settings/interval`` on the clock, until ``stop()``.
    /// Does nothing when retention is off. A failing pass is reported through `onFailure` and
    /// retried at the next interval.
    public func start(onFailure: @escaping @Sendable (any Error) -> Void) {
        guard settings.retentionDays > 0 else { return }
        passes.start(every: settings.interval, clock: clock, onFailure: onFailure) { [self] in _ = try await pruneOnce() }
    }

    /// Stops the background passes (a batch being deleted finishes).
    public func stop() async {
        await passes.stop()
    }

    /// Deletes every row past the window now, batch by batch; returns how many went.
    @discardableResult
    public func pruneOnce() async throws -> Int {
        guard settings.retentionDays > 0 else { return 0 }
        let cutoff = clock.nowMilliseconds() - Int64(settings.retentionDays) * 86_400_000
        var dropped = 0
        if let pool = store.pool {
            dropped = try pool.withConnection { try AuditPostgresPartitions.drop(before: cutoff, on: $0) }
            if dropped > 0 { onPruned(dropped) }
        }
        return try await dropped + BackgroundPasses.deleteInBatches(batchSize: settings.batchSize, restFactor: settings.restFactor, next: { _ in
            try self.candidates.query(self.candidates.pruneCandidatesSQL, [.integer(cutoff), .integer(Int64(self.settings.batchSize))])
                .compactMap(\.first?.textValue)
        }, delete: { ids in
            if store.pool == nil {
                try await store.submit(.prune(requestIds: ids))
            } else {
                _ = try candidates.delete(ids)
            }
            onPruned(ids.count)
        })
    }
}
