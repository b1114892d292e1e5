/// A failure of the audit store.
public enum AuditError: Error, Sendable, CustomStringConvertible {
    /// SQLite failed.
    case database(SQLiteError)
    /// PostgreSQL failed (or could not be reached).
    case postgres(PostgresError)
    /// ``AuditStore/finish(_:_:)`` named a request that has no row.
    case unknownRequest(String)
    /// The store was closed before the operation could be written.
    case closed
    /// The file is not a PushBridge audit (no `requests` table).
    case notAnAudit(String)

    /// For people.
    public var description: String {
        switch self {
        case .database(let error): "audit database: \(error)"
        case .postgres(let error): "audit database: \(error)"
        case .unknownRequest(let id): "audit: no row for request \(id)"
        case .closed: "audit: the store is closed"
        case .notAnAudit(let path): "\(path) is not a PushBridge audit database (no requests table)"
        }
    }

    /// Wraps any error as an ``AuditError``.
    static func wrap(_ error: any Error) -> AuditError {
        if let error = error as? AuditError { return error }
        if let error = error as? SQLiteError { return .database(error) }
        if let error = error as? PostgresError { return .postgres(error) }
        return .database(SQLiteError(code: 1, message: String(describing: error)))
    }

    /// Whether the database could not be reached (PostgreSQL down or restarting): the audit
    /// is unavailable, not the request at fault.
    public var isUnavailable: Bool {
        if case .postgres(let error) = self { return error.connectionLost || error.operation == "acquire" }
        return false
    }
}
