/// Recovery of an SQLite audit shaped as a log (``AuditLogSchema``): every intent without its
/// outcome gets one, `unknown`, without reading the whole log. `audit_marks` says through
/// which `request_log` id every intent had its outcome when a writer last wrote its mark; only
/// the log rows after the lowest mark are read (by rowid), each probing `request_outcomes` by
/// the same rowid (an outcome row is keyed by its intent's id, ``AuditOutcomeKeySchema``).
extension AuditRecovery {
    /// The outcome row of every intent after log id `?3` that has none: finished at `?1`, with
    /// the message `?2`.
    static let settleOpenIntentsSQL = """
        INSERT INTO request_outcomes (id, request_id, received_at, finished_at, outcome, error_message)
        SELECT l.id, l.request_id, l.received_at, ?, 'unknown', ? FROM request_log l
        WHERE \(openIntentsAfter)
        ORDER BY l.id
        """

    /// The intents (`l`, of `request_log`) after log id `?` without an outcome.
    private static let openIntentsAfter = "l.id > ? AND NOT EXISTS (SELECT 1 FROM request_outcomes o WHERE o.id = l.id)"

    /// The rollups' side of ``settleOpenIntentsSQL``, run just before it (after log id `?`):
    /// exactly the intents it settles leave `pending` for `unknown`.
    static let countOpenIntentsUnknownSQL = AuditRollupRows.moveToUnknownSQL(intents: openIntentsAfter)
    /// The same for the hourly rollups (``AuditRollupHourSchema``), run with it.
    static let countOpenIntentsUnknownHourlySQL = AuditRollupRows.moveToUnknownSQL(intents: openIntentsAfter, hourly: true)

    /// Writes `instance`'s mark (`?1`): every intent through log id `?2` has its outcome, as of `?3`.
    static let markSQL = """
        INSERT INTO audit_marks (instance_name, settled_through, marked_at) VALUES (?, ?, ?)
        ON CONFLICT (instance_name) DO UPDATE SET settled_through = excluded.settled_through, marked_at = excluded.marked_at
        """

    /// Runs at the SQLite writer's start, in one transaction: recounts the rollups from the
    /// earliest rollup mark left (counters a writer carried and never wrote,
    /// ``AuditRollupMarkSchema``), settles every open intent after
    /// the lowest mark (the file is this writer's: every open intent is a stopped process's),
    /// then leaves one mark, `instance`'s, at the last log row. Returns how many intents it
    /// settled and that last log id (where the writer's ``AuditOpenIntents`` start).
    static func recoverLog(_ database: SQLiteDatabase, instance: String, now: Int64) throws -> (recovered: Int, settledThrough: Int64) {
        try database.transaction(.immediate) {
            // First, as on PostgreSQL: the recount counts the open intents as `pending`, which
            // the statements below then move to `unknown` with their outcomes.
            try AuditRollupRows.recountAllMarked(database)
            let from = try database.rows("SELECT coalesce(min(settled_through), 0) FROM audit_marks").first?.first?.integerValue ?? 0
            try database.execute(countOpenIntentsUnknownSQL, [.integer(from)])
            try database.execute(countOpenIntentsUnknownHourlySQL, [.integer(from)])
            try database.execute(settleOpenIntentsSQL, [.integer(now), .text("the process stopped \(unknownReason)"), .integer(from)])
            let recovered = database.changes
            let last = try database.rows("SELECT coalesce(max(id), 0) FROM request_log").first?.first?.integerValue ?? 0
            try database.execute("DELETE FROM audit_marks")
            try database.execute(markSQL, [.text(instance), .integer(last), .integer(now)])
            return (recovered, last)
        }
    }
}
