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
}
