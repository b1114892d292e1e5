/// A batch the writer has run in one transaction, waiting to be acknowledged to its callers.
struct AuditCommittedBatch: Sendable {
    /// The operations, in the order they ran.
    var operations: [AuditOperation]
    /// Operations that failed alone (by index); the others are in the transaction.
    var failures: [Int: AuditError]
    /// Set when the whole transaction failed (rolled back): every operation fails with it.
    var batchError: AuditError?
    /// When `BEGIN` ran.
    var began: ContinuousClock.Instant
    /// When `COMMIT` returned on the writer thread.
    var committed: ContinuousClock.Instant
    /// When the batch carried its rollup counters on, or wrote counters earlier batches
    /// carried (``AuditRollupCarry``): the earliest received time concerned, recounted from
    /// the log if the batch fails as a whole after all (its `COMMIT`).
    var rollupsFrom: Int64? = nil
}
