import CSQLite

/// One SQLite connection (`sqlite3 *`), closed when the last reference goes.
///
/// Not `Sendable`: confine a database (and its statements) to one thread or actor, as the
/// audit writer does. Every SQLite return code is checked and failures throw ``SQLiteError``.
public final class SQLiteDatabase {
    /// The path it was opened with (`":memory:"` for an in-memory database).
    public let path: String
    /// The connection handle; valid for the object's lifetime.
    let handle: OpaquePointer

    /// Opens (and by default creates) the database at `path`, or an in-memory database for
    /// `":memory:"`. Extended result codes are switched on.
    public init(path: String, options: SQLiteOpenOptions = SQLiteOpenOptions()) throws(SQLiteError) {
        SQLiteLibrary.configured
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, options.flags, options.gatheredWAL ? SQLiteOpenOptions.gatheredWALVFS : nil)
        guard code == SQLITE_OK, let connection else {
            let error = SQLiteError.last(code, on: connection, sql: nil)
            // A handle is returned even on most failures and must still be closed.
            if let connection { sqlite3_close_v2(connection) }
            throw SQLiteError(code: error.extendedResultCode, message: "cannot open \(path): \(error.message)")
        }
        self.handle = connection
        self.path = path
        sqlite3_extended_result_codes(connection, 1)
    }

    deinit {
        // close_v2 defers the close until statements still alive are finalized.
        sqlite3_close_v2(handle)
    }

    /// Runs one or more `;`-separated statements that take no arguments.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            let detail = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: detail, sql: sql)
        }
    }

    /// Runs one statement with `arguments` bound by position, stepping it to completion.
    public func execute(_ sql: String, _ arguments: [SQLiteValue]) throws(SQLiteError) {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        try statement.run()
    }

    /// Runs one query with `arguments` and returns every row.
    public func rows(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        return try statement.rows()
    }

    /// Compiles one statement. Throws for invalid SQL or for trailing text after the first
    /// statement (use ``execute(_:)`` for scripts).
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(database: self, sql: sql)
    }

    /// The rowid of the last successful `INSERT` on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The path of the main database's write-ahead log (`<file>-wal`), or nil for a database
    /// with no file (`:memory:`, temporary). The file exists only while the database is in WAL
    /// mode and a connection has it open.
    public var walPath: String? {
        guard let name = sqlite3_db_filename(handle, "main"), name.pointee != 0,
              let wal = sqlite3_filename_wal(name) else { return nil }
        return String(cString: wal)
    }

    /// Whether a transaction is open (the connection is not in autocommit mode).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
}
