extension AuditReader {
    /// The conditions that narrow a time window `[since, until)` of the log to its minutes' id
    /// range (``AuditLogMinutesSchema/idBounds(_:since:until:)``) on the log id `column`; none
    /// on an audit without them (PostgreSQL, a file not migrated yet: an index on time answers).
    func logBounds(_ column: String, since: Int64?, until: Int64?) -> [String] {
        hasLogMinutes ? AuditLogMinutesSchema.idBounds(column, since: since, until: until) : []
    }

    /// The newest `limit` rows of a window `[since, until)` ordered by time, newest first, read
    /// by `rows(from)`: the rows received at or after `from` too (nil: the whole window). The
    /// log has no index on time, so the window is read back from its newest minute, widening
    /// fourfold until `limit` rows come back (every row received from `from` on sorts before
    /// every row received earlier, so those are the window's newest) or the window is whole.
    func newestRows(since: Int64?, until: Int64?, limit: Int,
                    _ rows: (_ from: Int64?) throws(AuditError) -> [[SQLiteValue]]) throws(AuditError) -> [[SQLiteValue]] {
        guard hasLogMinutes, limit > 0 else { return try rows(nil) }
        let through = until.map { " WHERE minute <= (\($0) - 1) / 60000" } ?? ""
        let span = try query("SELECT min(minute), max(minute) FROM \(AuditLogMinutesSchema.table)\(through)").first
        guard let first = span?[0].integerValue, let last = span?[1].integerValue else { return try rows(nil) }
        var width: Int64 = 1
        while true {
            let start = last - width + 1
            let from = start * 60_000
            if start <= first || since.map({ from <= $0 }) ?? false { return try rows(nil) }
            let found = try rows(from)
            if found.count >= limit { return found }
            width *= 4
        }
    }
}

extension AuditReader {
    /// The query of the oldest rows to prune (the cutoff and the batch's size bound to it):
    /// ``AuditPruning/candidatesByMinutesSQL`` on a log read by its minutes, else
    /// ``AuditPruning/candidatesSQL``.
    var pruneCandidatesSQL: String { hasLogMinutes ? AuditPruning.candidatesByMinutesSQL : AuditPruning.candidatesSQL }
}
