/// The rollups' counters readiness reads (issue 30, item 2), added to the per-minute rollups
/// of ``AuditRollupSchema`` by their own migration: per `rollup_findings` row, the requests
/// with a finding readiness judges (``ReadinessFindingRule``) and the newest of them; per
/// `rollup_requests` row, the OpenPush calls as the primary (``ReadinessOpenPushCounts``). The
/// migration recounts the rollups from the rows already there, as the one that made them did,
/// and drops `findings_by_field`: with readiness on the rollups nothing reads findings but by
/// request id (the table's primary key), so `findings` keeps one index.
enum AuditRollupReadinessSchema {
    /// SQLite's migration number.
    static let sqliteNumber = 14
    /// PostgreSQL's migration number.
    static let postgresNumber = 11
    /// The migration's name.
    static let name = "readiness counters in the rollups, findings_by_field dropped"

    /// The counters it adds to `rollup_findings`, after ``AuditRollupSchema``'s own.
    static let findingCounters = ["judged_requests", "judged_example_request_id"]
    /// The counters it adds to `rollup_requests`, after ``AuditRollupSchema``'s own.
    static let requestCounters = ["openpush_calls", "openpush_errors", "openpush_gaps", "openpush_rate_limited"]

    /// The columns, each with its default (the recount fills them), and the index no reader needs.
    private static func addColumns(sqlite: Bool) -> String {
        let integer = sqlite ? "INTEGER" : "BIGINT"
        return """
            ALTER TABLE rollup_findings ADD COLUMN judged_requests \(integer) NOT NULL DEFAULT 0;
            ALTER TABLE rollup_findings ADD COLUMN judged_example_request_id TEXT NOT NULL DEFAULT '';

            DROP INDEX IF EXISTS findings_by_field;

            """ + requestCounters.map { "ALTER TABLE rollup_requests ADD COLUMN \($0) \(integer) NOT NULL DEFAULT 0;\n" }.joined()
    }

    /// SQLite's migration: the columns, and the rollups recounted from the rows.
    static func migrateSQLite(_ database: SQLiteDatabase) throws {
        try database.execute(addColumns(sqlite: true))
        try AuditRollupRows.fill(database)
    }

    /// PostgreSQL's migration: the columns, and the mark that has the first writer to start
    /// recount the rollups (``AuditRollupRows/fillIfMarked(_:)``).
    static let postgresSQL = addColumns(sqlite: false) + "INSERT INTO rollup_backfill (pending) VALUES (1) ON CONFLICT DO NOTHING;\n"

    /// Whether `database`'s rollups have these counters (an audit `audit prune` opens may be
    /// migrated to the rollups but not yet to them).
    static func exist(in database: any AuditSQL) throws -> Bool {
        let sql = database is SQLiteDatabase
            ? "SELECT count(*) FROM pragma_table_info('rollup_findings') WHERE name = 'judged_requests'"
            : "SELECT count(*) FROM information_schema.columns WHERE table_name = 'rollup_findings' AND column_name = 'judged_requests' AND table_schema = current_schema()"
        return try database.select(sql, []).first?.first?.integerValue == 1
    }
}
