import CSQLite

/// How ``SQLiteDatabase`` opens its file.
public struct SQLiteOpenOptions: Sendable {
    /// Which mutex SQLite keeps for the connection.
    public enum Threading: Sendable {
        /// `SQLITE_OPEN_NOMUTEX`: no per-connection mutex. The connection must be used by one
        /// thread at a time, which is how PushBridge uses it (one audit writer thread), and
        /// what the non-`Sendable` ``SQLiteDatabase`` enforces at compile time.
        case multiThread
        /// `SQLITE_OPEN_FULLMUTEX`: SQLite serializes every call on the connection.
        case serialized
    }

    /// Open read-only. Default `false`.
    public var readOnly = false
    /// Create the file if it does not exist (ignored when ``readOnly``). Default `true`.
    public var create = true
    /// The connection's mutex. Default ``Threading/multiThread``.
    public var threading: Threading = .multiThread

    /// Write the WAL through ``gatheredWALVFS``: a commit's frames in one `pwrite` rather than
    /// two a frame. Default `false` (SQLite's `unix`).
    public var gatheredWAL = false

    /// The name of the VFS that gathers a WAL's writes (`Sources/CSQLite/wal_gather.h`).
    static let gatheredWALVFS = PB_WALGATHER_NAME

    /// The defaults: read-write, create, no connection mutex.
    public init() {}

    /// The `sqlite3_open_v2` flags.
    var flags: Int32 {
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        flags |= threading == .serialized ? SQLITE_OPEN_FULLMUTEX : SQLITE_OPEN_NOMUTEX
        return flags
    }
}
