/// The rollup counters the writer holds in its fold (``AuditWriter/rollupFold``)
/// across batches instead of writing them with each (issue 30, "PostgreSQL CPU per request";
/// on SQLite, "SQLite rollups carried").
///
/// Every batch touches the same few counter rows (this minute's and this hour's), so with
/// overlapped commits each batch's upserts waited on the row locks of the previous batch,
/// whose `COMMIT` was still out, and every upsert made a new row version of the same rows.
/// While a commit is outstanding, the writer carries a batch's counters on instead, at most
/// ``AuditStoreConfiguration/postgresRollupInterval`` and never into the next minute, and
/// writes everything carried, once per counter row, with the first batch that is alone
/// (nothing outstanding), or when its queue empties (``AuditWriter/flushCarriedRollups(_:)``).
///
/// Each carried batch inserts a mark in its own transaction (``AuditRollupMarkSchema``): the
/// earliest received time whose counters it left unwritten. The batch that writes the carried
/// counters deletes the marks, in the same transaction. So a crash, a `kill -9`, a takeover
/// or a failed commit leaves marks from which the rollups are recounted from the log
/// (``AuditRollupRows/recountMarked(_:instance:)``). Confined to the writer thread.
///
/// SQLite (``AuditWriteEngine/commitsInOrder``) carries while it is busy: operations queued
/// behind the batch it writes, or a commit waiting for its sync
/// (``AuditStoreConfiguration/sqliteRollupInterval``), decided once the batch's operations are
/// applied; a batch that finds neither writes everything. Callers are never held for the carry:
/// it is written with a later batch, alone only once the writer stayed idle, or first for a
/// reader in the process (``AuditRollupBarrier``). One mark covers the carry until it reaches
/// back to an earlier received time, and the carry is written before a batch that does not carry.
struct AuditRollupCarry {
    /// Whether the fold holds counters of committed (or committing) batches not written yet.
    var active = false
    /// When the first of them was carried, and the wall-clock minute it was carried in.
    var since = ContinuousClock.now
    var minute: Int64 = 0
    /// The earliest received time of a row whose counters are carried.
    var from = Int64.max
    /// The earliest received time a committed mark of the carry covers (SQLite, where a mark
    /// is inserted only when the carry starts or reaches back before it).
    var marked = Int64.max
    /// A batch flushed while commits of carried batches were still out: their marks may have
    /// committed after the flush's `DELETE`, so the next flush deletes the marks again.
    var marksLeft = false
}
