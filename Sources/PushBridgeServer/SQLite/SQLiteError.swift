import CSQLite

/// A failed SQLite call: its result code, SQLite's message, and the SQL it ran.
///
/// Bound argument values are never stored here, so an error can be logged without leaking
/// tokens or keys that were bound into a statement.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …).
    public var extendedResultCode: Int32
    /// SQLite's message (`sqlite3_errmsg`), or PushBridge's for misuse it detects itself.
    public var message: String
    /// The SQL being prepared or run, if any.
    public var sql: String?

    /// An error with an extended (or primary) result code, a message and the SQL.
    public init(code: Int32, message: String, sql: String? = nil) {
        self.extendedResultCode = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_ERROR`, …).
    public var resultCode: Int32 { extendedResultCode & 0xFF }

    /// `SQLite error 1 (SQL logic error): no such table: t - while executing `SELECT …``.
    public var description: String {
        var text = "SQLite error \(extendedResultCode) (\(String(cString: sqlite3_errstr(extendedResultCode)))): \(message)"
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }

    /// The error for `code` on `connection` (reading its current message).
    static func last(_ code: Int32, on connection: OpaquePointer?, sql: String?) -> SQLiteError {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        // The connection's extended code describes this failure only if it agrees with `code`.
        return SQLiteError(code: extended & 0xFF == code & 0xFF ? extended : code, message: message, sql: sql)
    }
}
