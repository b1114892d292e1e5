import CSQLite
#if canImport(Glibc)
import Glibc
#endif

extension SQLiteDatabase {
    /// Sets PushBridge's durable settings: `journal_mode=WAL` (checked: SQLite silently keeps
    /// another mode where WAL is impossible, such as `:memory:`), `synchronous=FULL` (a commit
    /// survives power loss), and a busy timeout for other connections' locks.
    public func configureDurableWAL(busyTimeout: Duration = .seconds(5)) throws(SQLiteError) {
        let milliseconds = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        let code = sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
        guard code == SQLITE_OK else { throw SQLiteError.last(code, on: handle, sql: nil) }
        let mode = try switchToWAL(within: busyTimeout)
        guard mode?.textValue?.lowercased() == "wal" else {
            throw SQLiteError(code: SQLITE_ERROR, message: "journal_mode stayed \(mode?.textValue ?? "unknown"), WAL is not available", sql: "PRAGMA journal_mode = WAL")
        }
        try execute("PRAGMA synchronous = FULL")
    }

    /// `PRAGMA journal_mode = WAL`, retried while another connection holds the file: SQLite
    /// answers `SQLITE_BUSY` at once, without its busy handler, when a second connection is
    /// switching the same new file at the same moment (processes started together).
    private func switchToWAL(within timeout: Duration) throws(SQLiteError) -> SQLiteValue? {
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            do {
                return try pragma("journal_mode", set: "WAL")
            } catch where error.resultCode == SQLITE_BUSY && ContinuousClock.now + pause < deadline {
                usleep(UInt32(pause.components.attoseconds / 1_000_000_000_000))
                pause = min(pause * 2, .milliseconds(50))
            }
        }
    }

    /// Reads `PRAGMA name`, or sets it with `PRAGMA name = value` and returns what SQLite
    /// reports back (nil when it reports nothing). `name` and `value` are SQL, not arguments:
    /// pass only constants.
    @discardableResult
    public func pragma(_ name: String, set value: String? = nil) throws(SQLiteError) -> SQLiteValue? {
        let sql = value.map { "PRAGMA \(name) = \($0)" } ?? "PRAGMA \(name)"
        return try rows(sql).first?.first
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`: copies every committed page of the `-wal` into the
    /// database file and truncates the `-wal` to zero bytes, so the file alone holds
    /// everything (waiting, as the busy timeout says, for readers to finish). Throws when a
    /// reader kept it from completing (SQLite then reports it busy).
    public func checkpointTruncatingWAL() throws(SQLiteError) {
        let result = try rows("PRAGMA wal_checkpoint(TRUNCATE)").first
        if result?.first?.integerValue == 1 {
            throw SQLiteError(code: SQLITE_BUSY, message: "the WAL checkpoint could not complete: a reader held the file", sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// The current journal mode, lower-cased (`wal`, `delete`, `memory`, …).
    public var journalMode: String {
        get throws(SQLiteError) { try pragma("journal_mode")?.textValue?.lowercased() ?? "" }
    }
}
