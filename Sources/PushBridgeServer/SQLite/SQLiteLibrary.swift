import CBlockCache
import CSQLite

/// Process-wide SQLite settings, applied once before the first connection opens.
enum SQLiteLibrary {
    /// Turns off SQLite's memory statistics (nothing in PushBridge reads them): with them on,
    /// every allocation SQLite makes takes one global mutex, shared by all connections. And
    /// makes SQLite allocate through the per-thread block cache (`Sources/CBlockCache`): the
    /// values a statement copies while it steps (an audit row's record, its text columns) and
    /// the b-trees of a query's temporary tables were a malloc and a free each, dozens per
    /// request, because Debian builds SQLite without its lookaside. Both are no-ops if the
    /// library was already initialized by someone else (SQLite keeps its own malloc then).
    /// Registers ``SQLiteOpenOptions/gatheredWALVFS`` (`Sources/CSQLite/wal_gather.h`), never
    /// the default: only a connection that names it writes its WAL through it.
    static let configured: Void = {
        _ = pb_sqlite_disable_memstatus()
        _ = pb_block_cache_install_sqlite()
        _ = pb_walgather_register()
    }()
}
