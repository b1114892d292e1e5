import CSQLite

/// Process-wide SQLite settings, applied once before the first connection opens.
enum SQLiteLibrary {
    /// Turns off SQLite's memory statistics (nothing in PushBridge reads them): with them on,
    /// every allocation SQLite makes takes one global mutex, shared by all connections. A
    /// no-op if the library was already initialized by someone else.
    static let configured: Void = {
        _ = pb_sqlite_disable_memstatus()
    }()
}
