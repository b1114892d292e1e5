import Foundation

/// A failed libpq call: what PushBridge was doing, PostgreSQL's SQLSTATE when the server
/// answered, its message, and the SQL (never its arguments, which may hold request data).
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// What failed: `connect`, `execute`, `parse URI`, …
    public var operation: String
    /// The five-character SQLSTATE (`23505` unique violation, `40001` serialization failure,
    /// `57P01` admin shutdown, …); nil when no server answered.
    public var sqlState: String?
    /// libpq's or the server's message, trimmed.
    public var message: String
    /// The statement, when one was running.
    public var sql: String?

    /// An error.
    public init(operation: String, sqlState: String? = nil, message: String, sql: String? = nil) {
        self.operation = operation
        self.sqlState = sqlState
        self.message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        self.sql = sql
    }

    /// Whether the connection itself is gone (the server restarted, the network broke), so
    /// that a new connection may succeed where this one failed.
    public var connectionLost: Bool {
        guard let sqlState else { return true }
        return sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03"
    }

    /// One line for logs and errors.
    public var description: String {
        var text = "PostgreSQL \(operation) failed"
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        text += ": \(message)"
        if let sql { text += " - while executing `\(sql.prefix(200))`" }
        return text
    }
}
