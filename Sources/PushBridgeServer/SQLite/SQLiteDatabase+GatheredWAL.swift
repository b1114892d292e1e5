import CSQLite

extension SQLiteDatabase {
    /// How many writes the connection's WAL passed on to the file system (one a commit, and
    /// one before any other use of the file that needs its bytes there) when it was opened
    /// with ``SQLiteOpenOptions/gatheredWAL``; nil when it was not, or it has no WAL open.
    var gatheredWALWrites: Int64? {
        let count = pb_walgather_flushes(handle)
        return count < 0 ? nil : count
    }
}
