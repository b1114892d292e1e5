/// One unit of work for the writer thread, already encoded into SQLite values by the caller
/// (so the one writer thread only binds and steps), with the reply it gives once the
/// transaction holding it has committed (or failed).
struct AuditOperation: Sendable {
    enum Work: Sendable {
        /// A `requests` row and its `findings` rows.
        case insert(row: [SQLiteValue], findings: [[SQLiteValue]])
        /// The completion columns of an existing row; `requestId` is the last value.
        case finish(requestId: String, values: [SQLiteValue])
        /// A named statement: a later change to a row (a scheduled start completing), a
        /// scheduled start's mirror, a shadow comparison.
        case statement(AuditStatement)
        /// Deletes these rows (unless pending or scheduled) and what belongs to them: the
        /// running proxy's retention, one small batch per operation. Background work: it runs
        /// in a transaction of its own, after the request operations queued before it (see
        /// ``AuditWriter/nextBatch()``).
        case prune(requestIds: [String])

        /// Whether this is background work, which yields to the request path's operations
        /// and never shares their transaction.
        var isBackground: Bool {
            if case .prune = self { true } else { false }
        }
    }

    var work: Work
    var submitted: ContinuousClock.Instant
    /// Called once, on the writer thread, when the transaction holding it has committed (or
    /// failed): a continuation's resume, or a callback raced against a deadline.
    var reply: @Sendable (Result<Void, any Error>) -> Void
}
