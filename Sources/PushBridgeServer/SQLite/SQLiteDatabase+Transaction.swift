import CSQLite

extension SQLiteDatabase {
    /// When a transaction takes its write lock.
    public enum TransactionKind: String, Sendable {
        /// `BEGIN DEFERRED`: on the first write.
        case deferred = "DEFERRED"
        /// `BEGIN IMMEDIATE`: at once, so a busy database fails at `BEGIN`, not mid-way.
        case immediate = "IMMEDIATE"
        /// `BEGIN EXCLUSIVE`.
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws (and
    /// rethrows its error). Throws ``SQLiteError`` if `BEGIN` or `COMMIT` fails; a failed
    /// commit is rolled back too. Transactions do not nest.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        let result: T
        do {
            result = try body()
        } catch {
            rollBackIfOpen()
            throw error
        }
        do {
            try execute("COMMIT TRANSACTION")
        } catch {
            rollBackIfOpen()
            throw error
        }
        return result
    }

    /// Rolls back the open transaction, if SQLite has not already done so itself (it does on
    /// some errors, such as `SQLITE_FULL`). A failure here leaves nothing better to report
    /// than the error that caused the rollback, which the caller rethrows.
    private func rollBackIfOpen() {
        guard isInTransaction else { return }
        _ = sqlite3_exec(handle, "ROLLBACK TRANSACTION", nil, nil, nil)
    }
}
