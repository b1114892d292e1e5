/// One unit of work for the writer thread, already encoded into SQLite values by the caller
/// (so the one writer thread only binds and steps), with the reply it gives once the
/// transaction holding it has committed (or failed).
struct AuditOperation: Sendable {
    enum Work: Sendable {
        /// A `requests` row and its `findings` rows, and the activity-ledger changes of its
        /// completion (``ActivityLedgerSQL/statements(for:requestId:)``), all or nothing.
        case insert(row: [SQLiteValue], findings: [[SQLiteValue]], ledger: [AuditStatement] = [])
        /// The completion columns of an existing row; `requestId` is the last value. With the
        /// activity-ledger changes the completion carries, all or nothing: a completion that
        /// fails (no such row) leaves none of them.
        case finish(requestId: String, values: [SQLiteValue], ledger: [AuditStatement] = [])
        /// A named statement: a later change to a row (a scheduled start completing), a
        /// scheduled start's mirror, a shadow comparison.
        case statement(AuditStatement)
        /// Deletes these rows (unless pending or scheduled) and what belongs to them: the
        /// running proxy's retention, one small batch per operation. Background work: it runs
        /// in a transaction of its own, after the request operations queued before it (see
        /// ``AuditWriter/nextBatch()``).
        case prune(requestIds: [String])
        /// A named statement run as background work, like ``prune(requestIds:)``: the activity
        /// ledger's upkeep (``ActivityLedgerUpkeep``), one small batch per operation.
        case background(AuditStatement)
        /// One upsert of the per-minute rollups (``AuditRollupFold``), folded by the writer
        /// from the batch it joins (``AuditWriter/rollupWork(_:on:)``): runs after the
        /// batch's own operations, in their transaction and, on PostgreSQL, their pipeline.
        case rollup(AuditStatement)

        /// Whether this is background work, which yields to the request path's operations
        /// and never shares their transaction.
        var isBackground: Bool {
            switch self {
            case .prune, .background: true
            case .insert, .finish, .statement, .rollup: false
            }
        }
    }

    var work: Work
    var submitted: ContinuousClock.Instant
    /// Called once, on the writer thread, when the transaction holding it has committed (or
    /// failed): a continuation's resume, or a callback raced against a deadline.
    var reply: @Sendable (Result<Void, any Error>) -> Void
    /// What the request path knows of the row that the rollups would otherwise read back
    /// from its text (sends, the attempts' figures): nil for work that carries no request.
    var counts: AuditRollupCounts? = nil
}
