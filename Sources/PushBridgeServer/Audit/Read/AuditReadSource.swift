import CSQLite
import Synchronization

/// Where an ``AuditReader``'s queries run: one SQLite connection behind a lock, or a
/// PostgreSQL pool.
protocol AuditReadSource: Sendable {
    /// Runs `body` with a connection of its own.
    func withSQL<T: Sendable>(_ body: (any AuditSQL) throws -> T) throws -> T
}

/// One SQLite connection, used by one caller at a time.
final class SQLiteReadSource: AuditReadSource {
    private let database: Mutex<SQLiteCachedStatements>
    /// The connection's busy timeout (ms), restored after a read that must not wait.
    private let busyTimeout: Int32

    /// Reads through `database`, keeping up to `cachedStatements` queries compiled between
    /// reads (``SQLiteCachedStatements``; 0: each compiled for its run).
    init(_ database: sending SQLiteDatabase, cachedStatements: Int = 0) {
        busyTimeout = Int32(clamping: (try? database.pragma("busy_timeout"))?.integerValue ?? 0)
        self.database = Mutex(SQLiteCachedStatements(database, capacity: cachedStatements))
    }

    func withSQL<T: Sendable>(_ body: (any AuditSQL) throws -> T) throws -> T {
        // Without a cache the connection itself (callers tell the engines apart by its type).
        try database.withLock { database throws -> T in try body(database.capacity > 0 ? database : database.database) }
    }

    /// Runs `body` with the connection if no one is using it and SQLite need not wait for a
    /// lock; nil if someone is using it, or if `body` met another connection's lock
    /// (`SQLITE_BUSY` at once, the busy timeout off for this read): the caller, an event loop
    /// that must not sleep up to the busy timeout, then goes the way that may wait.
    func withSQLIfAvailable<T: Sendable>(_ body: (any AuditSQL) throws -> T) throws -> T? {
        let restore = busyTimeout
        let result = try database.withLockIfAvailable { cached throws -> T? in
            sqlite3_busy_timeout(cached.database.handle, 0)
            defer { sqlite3_busy_timeout(cached.database.handle, restore) }
            do {
                return try body(cached)
            } catch let error as SQLiteError where error.resultCode == SQLITE_BUSY {
                return nil
            }
        }
        return result ?? nil
    }
}

extension PostgresPool: AuditReadSource {
    /// Runs `body` on a pooled connection; a read that found its connection dead (the server
    /// restarted since it was last used) runs once more on a new one.
    func withSQL<T: Sendable>(_ body: (any AuditSQL) throws -> T) throws -> T {
        do {
            return try withConnection { try body($0) }
        } catch let error as PostgresError where error.connectionLost {
            return try withConnection { try body($0) }
        }
    }
}
