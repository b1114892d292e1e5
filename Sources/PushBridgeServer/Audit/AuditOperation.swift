/// One unit of work for the writer thread, already encoded into SQLite values by the caller
/// (so the one writer thread only binds and steps), with the continuation it resumes once the
/// transaction holding it has committed (or failed).
struct AuditOperation: Sendable {
    enum Work: Sendable {
        /// A `requests` row and its `findings` rows.
        case insert(row: [SQLiteValue], findings: [[SQLiteValue]])
        /// The completion columns of an existing row; `requestId` is the last value.
        case finish(requestId: String, values: [SQLiteValue])
        /// A later change to an existing row (a scheduled send completing): `sql` is a fixed
        /// statement from this module, never built from input; `requestId` is in `values`.
        case update(requestId: String, sql: String, values: [SQLiteValue])
        /// A row of another table (a shadow comparison).
        case insertOther(sql: String, values: [SQLiteValue])
    }

    var work: Work
    var submitted: ContinuousClock.Instant
    var continuation: CheckedContinuation<Void, any Error>
}
