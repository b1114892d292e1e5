import CSQLite

/// What a connection tells after each of its commits in WAL mode: how many frames the WAL
/// holds. Installed with ``SQLiteDatabase/setWALObserver(_:)``.
final class SQLiteWALObserver: Sendable {
    /// Called on the committing connection's thread, inside `COMMIT` (keep it cheap).
    let committed: @Sendable (_ frames: Int) -> Void

    /// An observer calling `committed` with the WAL's frame count after each commit.
    init(committed: @escaping @Sendable (_ frames: Int) -> Void) {
        self.committed = committed
    }
}

/// The C callback `sqlite3_wal_hook` calls; `context` is an unretained ``SQLiteWALObserver``.
private func walHook(_ context: UnsafeMutableRawPointer?, _ database: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ frames: Int32) -> Int32 {
    if let context { Unmanaged<SQLiteWALObserver>.fromOpaque(context).takeUnretainedValue().committed(Int(frames)) }
    return SQLITE_OK
}

extension SQLiteDatabase {
    /// Hands every commit's WAL frame count to `observer` instead of checkpointing
    /// automatically: this connection stops checkpointing on its own (`sqlite3_wal_hook`
    /// replaces `wal_autocheckpoint`), so whoever observes must checkpoint. The observer is not
    /// retained: call this with nil before it goes, and before the connection closes.
    func setWALObserver(_ observer: SQLiteWALObserver?) {
        if let observer {
            sqlite3_wal_hook(handle, walHook, Unmanaged.passUnretained(observer).toOpaque())
        } else {
            sqlite3_wal_hook(handle, nil, nil)
        }
    }
}
