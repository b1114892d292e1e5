import Dispatch

/// One database connection, an SQLite file or a PostgreSQL link, and the one serial queue
/// every access to it goes through (GRDB's `SerializedDatabase`): callers hand it a closure
/// and are resumed by a continuation once the queue has run it, so no cooperative-pool
/// thread ever waits on a lock, an fsync or a round trip to the server.
///
/// The closure sees the connection as ``AuditSQL``: statements written once with `?` marks,
/// numbered for PostgreSQL by the connection.
final class SerializedDatabase: @unchecked Sendable {
    /// The engine and its connection.
    enum Engine {
        /// An SQLite file, owned here.
        case sqlite(SQLiteDatabase)
        /// A PostgreSQL link (a pool of one that connects again after the server dropped it).
        case postgres(PostgresLink)
    }

    /// True on PostgreSQL, for the few statements whose spelling differs.
    let isPostgres: Bool
    // Touched only on `queue` (that is what makes the class Sendable).
    private let engine: Engine
    private let queue: DispatchQueue

    /// `engine`'s connection, accessed only through a queue named after `label`.
    init(_ engine: Engine, label: String) {
        self.engine = engine
        if case .postgres = engine { isPostgres = true } else { isPostgres = false }
        queue = DispatchQueue(label: "pushbridge-\(label)")
    }

    /// Runs `body` on the queue; the caller is suspended (its thread given back to the pool)
    /// until it has run.
    func perform<T: Sendable>(_ body: @escaping @Sendable (any AuditSQL) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async { continuation.resume(with: Result { try self.access(body) }) }
        }
    }

    /// Runs `body` on the queue and waits for it: only for opening (migrations, before any
    /// caller can reach the store), never from a task.
    func performWhileOpening<T>(_ body: (any AuditSQL) throws -> T) throws -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return try queue.sync { try access(body) }
    }

    /// Runs `body` with the SQLite file itself (for what only SQLite has: its WAL checkpoint);
    /// nil on PostgreSQL.
    func performOnSQLite<T: Sendable>(_ body: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T?, any Error>) in
            queue.async {
                continuation.resume(with: Result {
                    guard case .sqlite(let db) = self.engine else { return nil }
                    return try body(db)
                })
            }
        }
    }

    private func access<T>(_ body: (any AuditSQL) throws -> T) throws -> T {
        switch engine {
        case .sqlite(let db): try body(db)
        case .postgres(let link): try link.run { try body($0) }
        }
    }
}
