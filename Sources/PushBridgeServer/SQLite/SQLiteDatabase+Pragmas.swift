import CSQLite

extension SQLiteDatabase {
    /// Sets PushBridge's durable settings: `journal_mode=WAL` (checked: SQLite silently keeps
    /// another mode where WAL is impossible, such as `:memory:`), `synchronous=FULL` (a commit
    /// survives power loss), and a busy timeout for other connections' locks.
    public func configureDurableWAL(busyTimeout: Duration = .seconds(5)) throws(SQLiteError) {
        let milliseconds = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        let code = sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
        guard code == SQLITE_OK else { throw SQLiteError.last(code, on: handle, sql: nil) }
        let mode = try pragma("journal_mode", set: "WAL")
        guard mode?.textValue?.lowercased() == "wal" else {
            throw SQLiteError(code: SQLITE_ERROR, message: "journal_mode stayed \(mode?.textValue ?? "unknown"), WAL is not available", sql: "PRAGMA journal_mode = WAL")
        }
        try execute("PRAGMA synchronous = FULL")
    }

    /// Reads `PRAGMA name`, or sets it with `PRAGMA name = value` and returns what SQLite
    /// reports back (nil when it reports nothing). `name` and `value` are SQL, not arguments:
    /// pass only constants.
    @discardableResult
    public func pragma(_ name: String, set value: String? = nil) throws(SQLiteError) -> SQLiteValue? {
        let sql = value.map { "PRAGMA \(name) = \($0)" } ?? "PRAGMA \(name)"
        return try rows(sql).first?.first
    }

    /// The current journal mode, lower-cased (`wal`, `delete`, `memory`, …).
    public var journalMode: String {
        get throws(SQLiteError) { try pragma("journal_mode")?.textValue?.lowercased() ?? "" }
    }
}
