/// The index the scheduled-start reconciler reads at start-up
/// (``AuditReader/unsettledScheduled()``): a partial index on `request_outcomes` of the rows
/// whose outcome is `scheduled`, added by its own migration. Since the audit became a log
/// (``AuditLogSchema``) `requests` is a view and the old table's `requests_outcomes` is gone,
/// so without it the reconciler read the whole log on every start. It holds only the requests
/// still `scheduled`: a start's completion updates the outcome row, which leaves the index,
/// and ordinary rows never enter it, so the writers pay nothing for it on the request path.
enum AuditScheduledIndexSchema {
    /// SQLite's migration number.
    static let sqliteNumber = 15
    /// PostgreSQL's migration number.
    static let postgresNumber = 12
    /// The migration's name.
    static let name = "partial index of the scheduled outcomes"
    /// The index's name.
    static let indexName = "request_outcomes_scheduled"

    /// The migration, the same on both engines (PostgreSQL puts the index on every partition
    /// of `request_outcomes`, those made later included).
    static let sql = """
        CREATE INDEX IF NOT EXISTS \(indexName) ON request_outcomes (request_id) WHERE outcome = '\(AuditOutcome.scheduled.rawValue)';

        """
}
