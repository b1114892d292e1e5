/// A connection the audit's statements run on, whichever engine holds the audit: SQLite
/// (``SQLiteDatabase``) or PostgreSQL (``PostgresConnection``). Statements are written once,
/// with `?` marks and ``SQLiteValue`` arguments; the PostgreSQL side numbers the marks
/// (`$1`, `$2`, …) and maps the values both ways.
protocol AuditSQL {
    /// Runs one statement; returns the rows it changed.
    @discardableResult
    func change(_ sql: String, _ values: [SQLiteValue]) throws -> Int
    /// Runs one query; returns its rows.
    func select(_ sql: String, _ values: [SQLiteValue]) throws -> [[SQLiteValue]]
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func inTransaction<T>(_ body: () throws -> T) throws -> T
    /// Whether the audit is shaped as a log (`request_log` and `request_outcomes`, with
    /// `requests` a view: SQLite migration 12, ``AuditLogSchema``), so a write to a request's
    /// row goes to those tables (``AuditStatement/logSQL``).
    func isAuditLog() throws -> Bool
    /// Whether the log's outcome rows are keyed by their intent's id (SQLite migration 22,
    /// ``AuditOutcomeKeySchema``): a file a tool opens may not be migrated to it yet.
    func outcomesKeyedByIntent() throws -> Bool
}

extension AuditSQL {
    /// PostgreSQL's audit keeps its `requests` table until its own migration to the log.
    func isAuditLog() throws -> Bool { false }

    /// PostgreSQL's outcome rows keep their own key.
    func outcomesKeyedByIntent() throws -> Bool { false }

    /// Whether the audit has a table named `name` (`name` is one of ours, never a caller's):
    /// a file a reader or `audit prune` opens may not be migrated to a newer table yet.
    func hasTable(_ name: String) throws -> Bool {
        let sql = self is SQLiteDatabase
            ? "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
            : "SELECT count(*) FROM information_schema.tables WHERE table_name = ? AND table_schema = current_schema()"
        return try select(sql, [.text(name)]).first?.first?.integerValue == 1
    }
}

extension SQLiteDatabase: AuditSQL {
    func change(_ sql: String, _ values: [SQLiteValue]) throws -> Int {
        try execute(sql, values)
        return changes
    }

    func select(_ sql: String, _ values: [SQLiteValue]) throws -> [[SQLiteValue]] {
        try rows(sql, values)
    }

    func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction { try body() }
    }

    func isAuditLog() throws -> Bool {
        try rows("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'request_outcomes'").first?.first?.integerValue == 1
    }

    func outcomesKeyedByIntent() throws -> Bool {
        try isAuditLog()
            && rows("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?", [.text(AuditOutcomeKeySchema.droppedIndex)]).first?.first?.integerValue == 0
    }
}
