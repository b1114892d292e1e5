/// The rollup counters the PostgreSQL writer holds in its fold (``AuditWriter/rollupFold``)
/// across batches instead of writing them with each (issue 30, "PostgreSQL CPU per request").
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
struct AuditRollupCarry {
    /// Whether the fold holds counters of committed (or committing) batches not written yet.
    var active = false
    /// When the first of them was carried, and the wall-clock minute it was carried in.
    var since = ContinuousClock.now
    var minute: Int64 = 0
    /// The earliest received time of a row whose counters are carried.
    var from = Int64.max
    /// A batch flushed while commits of carried batches were still out: their marks may have
    /// committed after the flush's `DELETE`, so the next flush deletes the marks again.
    var marksLeft = false
}
