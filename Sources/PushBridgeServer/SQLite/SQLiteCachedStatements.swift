/// An SQLite connection that keeps the queries it ran compiled, for a reader that runs the
/// same few queries over and over (the activity ledger's read of every request's placement:
/// compiling its query cost about 130 allocations a request, `alloc-count --sites`).
///
/// Each statement is reset and its bindings cleared after every run, whether it succeeded or
/// not, so no cached statement keeps a read transaction (and the WAL snapshot it pins) open
/// between reads. At most `capacity` statements are kept; a query past them is compiled for
/// its run and finalized after it, as without a cache. Not `Sendable`: one caller at a time,
/// like the connection it wraps (``SQLiteReadSource`` holds it behind a lock).
final class SQLiteCachedStatements: AuditSQL {
    /// The connection.
    let database: SQLiteDatabase
    /// How many compiled queries are kept at most.
    let capacity: Int
    /// The compiled queries, by their SQL.
    private var statements: [String: SQLiteStatement] = [:]

    /// Wraps `database`, keeping up to `capacity` compiled queries.
    init(_ database: SQLiteDatabase, capacity: Int) {
        self.database = database
        self.capacity = capacity
    }

    /// How many compiled queries it holds now.
    var cachedCount: Int { statements.count }

    func select(_ sql: String, _ values: [SQLiteValue]) throws -> [[SQLiteValue]] {
        let statement: SQLiteStatement
        if let cached = statements[sql] {
            statement = cached
        } else {
            statement = try database.prepare(sql)
            if statements.count < capacity { statements[sql] = statement }
        }
        // Also after a failed bind or step: the next run starts clean and no read stays open.
        defer { _ = try? statement.reset() }
        try statement.bind(values)
        return try statement.rows()
    }

    func change(_ sql: String, _ values: [SQLiteValue]) throws -> Int {
        try database.change(sql, values)
    }

    func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try database.inTransaction(body)
    }

    func isAuditLog() throws -> Bool {
        try database.isAuditLog()
    }
}
