extension AuditReader {
    /// The report's counts over `filter`: the whole hours inside its window from the hourly
    /// rollups, the whole minutes around them from the per-minute rollups (``RollupWindow``),
    /// the partial minutes at its edges (a `--since` or `--until` that is not on a minute) from
    /// the log's rows, so the totals are exactly the rows'. `fromRows`, or an audit no proxy of
    /// this build has migrated, reads only the rows.
    func reportTally(_ filter: ReportFilter, fromRows: Bool = false) throws(AuditError) -> ReportTally {
        var tally = ReportTally()
        guard !fromRows, hasRollups else {
            try tallyRows(filter, since: filter.since, until: filter.until, into: &tally)
            return tally
        }
        let window = RollupWindow(since: filter.since, until: filter.until)
        if window.minutes != nil { try tallyRollups(filter, window, into: &tally) }
        for edge in window.edges { try tallyRows(filter, since: edge.since, until: edge.until, into: &tally) }
        if window.minutes != nil { try tallyRollupTimes(filter, window, into: &tally) }
        return tally
    }

    /// The filter's dialect, route and app conditions on `table`'s rollup over `window` (``rollupSource(_:_:)``).
    private func rollupClause(_ filter: ReportFilter, _ table: RollupTable, _ window: RollupWindow, extra more: [String] = [])
        -> (from: String, clause: String, arguments: [SQLiteValue]) {
        var bounded = filter
        (bounded.since, bounded.until) = (nil, nil)
        let source = rollupSource(table, window)
        let (clause, arguments) = bounded.whereClause(extra: more + source.conditions)
        return (source.from, clause, arguments)
    }

    private func tallyRollups(_ filter: ReportFilter, _ window: RollupWindow, into tally: inout ReportTally) throws(AuditError) {
        let (requests, clause, arguments) = rollupClause(filter, .requests, window)
        // Few groups each. The retries are summed with the cells: each read of the table is a
        // pass over every rollup row.
        for row in try query("""
            SELECT outcome, upstream_status, dialect, route, sum(requests), min(first_at), max(last_at),
                   sum(retried_requests), sum(retries), sum(rate_limited_attempts), sum(rate_limit_wait_ms)
            FROM \(requests) \(clause) GROUP BY outcome, upstream_status, dialect, route
            """, arguments) {
            let status = row[1].integerValue ?? 0
            tally.add(ReportTally.Cell(outcome: row[0].textValue ?? "", status: status == 0 ? nil : status, dialect: row[2].textValue ?? "", route: row[3].textValue ?? ""),
                      minute: nil, count: Int(row[4].integerValue ?? 0), first: row[5].integerValue, last: row[6].integerValue)
            tally.retried += Int(row[7].integerValue ?? 0)
            tally.retries += Int(row[8].integerValue ?? 0)
            tally.rateLimited += Int(row[9].integerValue ?? 0)
            tally.waitMs += Self.double(row[10])
        }
        // Readiness's groups with the report's, in one read (``RolledFindingGroups``).
        let (findings, findingClause, findingArguments) = rollupClause(filter, .findings, window)
        let groups = try RolledFindingGroups.read(self, filter: filter, from: findings, findingClause, findingArguments)
        groups.addReportGroups(to: &tally)
        tally.rolledFindings = groups
    }

    /// The requests and dropped findings over time (``ReportTally/perMinute``) from the rollups,
    /// read once the tally's first and last request are known: when the report's buckets
    /// (``bucketWidth(_:)``) are whole hours, each whole hour is one hourly sum (counted at its
    /// first minute, in its one bucket), else every whole minute from the per-minute rollups.
    /// The per-minute sums stream in the key's order (minute first), unsorted.
    private func tallyRollupTimes(_ filter: ReportFilter, _ whole: RollupWindow, into tally: inout ReportTally) throws(AuditError) {
        var hourly = false
        if let first = tally.firstAt, let last = tally.lastAt { hourly = Self.bucketWidth(last - first) % 3_600_000 == 0 }
        let window = hourly ? whole : RollupWindow(since: filter.since, until: filter.until, hourly: false)
        let (requests, clause, arguments) = rollupClause(filter, .requests, window)
        for row in try query("SELECT minute, sum(requests) FROM \(requests) \(clause) GROUP BY minute", arguments) where row[1].integerValue != 0 {
            tally.perMinute[row[0].integerValue ?? 0, default: 0] += Int(row[1].integerValue ?? 0)
        }
        let (findings, dropped, droppedArguments) = rollupClause(filter, .findings, window, extra: ["kind = 'dropped'"])
        for row in try query("SELECT minute, sum(findings) FROM \(findings) \(dropped) GROUP BY minute", droppedArguments) where row[1].integerValue != 0 {
            tally.droppedPerMinute[row[0].integerValue ?? 0, default: 0] += Int(row[1].integerValue ?? 0)
        }
    }

    /// The rows received in [since, until) (either open), counted as the rollups count them.
    private func tallyRows(_ filter: ReportFilter, since: Int64?, until: Int64?, into tally: inout ReportTally) throws(AuditError) {
        var window = filter
        (window.since, window.until) = (since, until)
        let (clause, arguments) = window.whereClause(extra: logBounds("id", since: since, until: until))
        for row in try query("""
            SELECT outcome, upstream_status, dialect, route, received_at / 60000, count(*), min(received_at), max(received_at)
            FROM requests \(clause) GROUP BY 1, 2, 3, 4, 5
            """, arguments) {
            tally.add(ReportTally.Cell(outcome: row[0].textValue ?? "", status: row[1].integerValue, dialect: row[2].textValue ?? "", route: row[3].textValue ?? ""),
                      minute: row[4].integerValue ?? 0, count: Int(row[5].integerValue ?? 0), first: row[6].integerValue, last: row[7].integerValue)
        }
        let (retried, retriedArguments) = window.whereClause(extra: ["json_array_length(attempts) > 1"] + logBounds("id", since: since, until: until))
        var fold = AuditRollupFold()
        for row in try query("SELECT attempts FROM requests \(retried)", retriedArguments) {
            fold.add(AuditRollupRow(intent: AuditRollupRow.Intent(receivedAt: 0), outcome: "", attempts: row[0].textValue))
        }
        for counters in fold.requests.values {
            tally.retried += Int(counters.retried)
            tally.retries += Int(counters.retries)
            tally.rateLimited += Int(counters.rateLimited)
            tally.waitMs += counters.waitMs
        }
        fold = AuditRollupFold()
        // Along the findings' key, by the requests the window selects (by time, no findings index).
        let rows = try query("""
            SELECT request_id, ordinal, dialect, route, source_app, received_at, field, kind, severity, message, instance_name
            FROM findings WHERE request_id IN (SELECT request_id FROM requests \(clause)) ORDER BY request_id, ordinal
            """, arguments)
        var start = 0
        while start < rows.count {
            var end = start + 1
            while end < rows.count, rows[end][0].textValue == rows[start][0].textValue { end += 1 }
            fold.addFindings(Array(rows[start..<end]), appName: "")
            start = end
        }
        tally.add(fold)
    }
}
