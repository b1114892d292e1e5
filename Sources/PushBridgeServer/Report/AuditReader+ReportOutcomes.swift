extension AuditReader {
    /// Requests per route (unhandled routes apart, most frequent first, at most
    /// ``unhandledRouteLimit``), outcomes, statuses, retries and rate-limit waits from
    /// `tally`; scheduled sends by state.
    func routesAndUpstream(_ filter: ReportFilter, _ tally: ReportTally) throws(AuditError) -> ([RouteTotal], [RouteTotal], UpstreamSummary) {
        var summary = UpstreamSummary()
        var outcomes: [String: Int] = [:], statuses: [String: Int] = [:], routes: [String: Int] = [:], unhandled: [String: Int] = [:]
        for (cell, count) in tally.requests where count != 0 {
            outcomes[cell.outcome, default: 0] += count
            statuses[cell.status.map { String($0) } ?? "none", default: 0] += count
            let key = cell.dialect + "\u{1}" + cell.route
            if cell.outcome == AuditOutcome.unhandled.rawValue { unhandled[key, default: 0] += count } else { routes[key, default: 0] += count }
        }
        let totals: ([String: Int]) -> [RouteTotal] = { counts in
            counts.compactMap { key, count in
                guard count != 0 else { return nil }
                let parts = key.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
                return RouteTotal(dialect: parts[0], route: parts[1], requests: count)
            }
        }
        let routeTotals = totals(routes).sorted { ($0.dialect, $0.route) < ($1.dialect, $1.route) }
        let unhandledTotals = totals(unhandled).sorted { ($1.requests, $0.dialect, $0.route) < ($0.requests, $1.dialect, $1.route) }.prefix(Self.unhandledRouteLimit)
        summary.outcomes = Self.counts(outcomes.filter { $0.value != 0 })
        summary.statuses = Self.counts(statuses.filter { $0.value != 0 })
        (summary.retriedRequests, summary.retries, summary.rateLimitedAttempts, summary.rateLimitWaitMs) = (tally.retried, tally.retries, tally.rateLimited, tally.waitMs)
        summary.scheduledSends = try scheduledSends(filter)
        return (routeTotals, Array(unhandledTotals), summary)
    }

    /// Scheduled sends created in the filter's window, by state, most first.
    func scheduledSends(_ filter: ReportFilter) throws(AuditError) -> [Count] {
        var scheduledConditions: [String] = []
        var scheduledArguments: [SQLiteValue] = []
        if let since = filter.since { scheduledConditions.append("created_at >= ?"); scheduledArguments.append(.integer(since)) }
        if let until = filter.until { scheduledConditions.append("created_at < ?"); scheduledArguments.append(.integer(until)) }
        let scheduledClause = scheduledConditions.isEmpty ? "" : "WHERE " + scheduledConditions.joined(separator: " AND ")
        return try query("SELECT state, count(*) FROM scheduled_sends \(scheduledClause) GROUP BY state ORDER BY 2 DESC, 1", scheduledArguments)
            .map { Count($0[0].textValue ?? "", Int($0[1].integerValue ?? 0)) }
    }

    /// Verdicts, the status-class matrix, disagreements (the expected ones, OpenPush's
    /// population gaps, apart), latency percentiles and error rates.
    func shadowSummary(_ filter: ReportFilter) throws(AuditError) -> ShadowSummary {
        var summary = ShadowSummary()
        let (clause, arguments) = filter.whereClause(time: "compared_at")
        summary.comparisons = Int(try query("SELECT count(*) FROM shadow_comparisons \(clause)", arguments).first?.first?.integerValue ?? 0)
        guard summary.comparisons > 0 else { return summary }
        // A side's status class grouped as its hundreds (NULL: no status, or an error) and named
        // here (`2xx`, `error`): SQL makes no text per comparison (about a third of the query's CPU).
        let hundreds = { (side: String) in "CASE WHEN \(side)_status IS NULL OR \(side)_error IS NOT NULL THEN NULL ELSE \(side)_status / 100 END" }
        let statusClass = { (value: SQLiteValue) in value.integerValue.map { "\($0)xx" } ?? "error" }
        var verdicts: [String: Int] = [:], cells: [String: Int] = [:], primaryErrors = 0, shadowErrors = 0
        let expected = PopulationGap.expectedDisagreementSQL()
        for row in try query("""
            SELECT verdict, \(hundreds("primary")), \(hundreds("shadow")), count(*), sum(CASE WHEN \(expected) THEN 1 ELSE 0 END)
            FROM shadow_comparisons s \(clause) GROUP BY 1, 2, 3
            """, arguments) {
            let primary = statusClass(row[1]), shadow = statusClass(row[2]), count = Int(row[3].integerValue ?? 0), gaps = Int(row[4].integerValue ?? 0)
            verdicts[row[0].textValue ?? "", default: 0] += count
            cells[primary + "\u{1}" + shadow, default: 0] += count
            summary.expectedDisagreements += gaps
            // A shadow skipped for live traffic was not sent: its own verdict, not a disagreement.
            if (primary == "2xx") != (shadow == "2xx"), row[0].textValue != ShadowComparison.Verdict.shadowSkipped.rawValue { summary.disagreements += count - gaps }
            if primary == "error" { primaryErrors += count }
            if shadow == "error" { shadowErrors += count }
        }
        summary.verdicts = Self.counts(verdicts)
        summary.matrix = cells.map { key, count in
            let sides = key.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
            return MatrixCell(primary: sides[0], shadow: sides[1], count: count)
        }.sorted { ($0.primary, $0.shadow) < ($1.primary, $1.shadow) }
        summary.primaryErrorRate = Double(primaryErrors) / Double(summary.comparisons)
        summary.shadowErrorRate = Double(shadowErrors) / Double(summary.comparisons)
        let accepted = PopulationGap.accepted
        let (disagree, disagreeArguments) = filter.whereClause(time: "compared_at", extra: ["\(accepted("primary")) != \(accepted("shadow"))", "NOT \(expected)", AuditReader.shadowSent])
        summary.disagreementExamples = try query("""
            SELECT request_id, verdict, primary_status, shadow_status, coalesce(differences, primary_error, shadow_error, '')
            FROM shadow_comparisons s \(disagree) ORDER BY compared_at DESC, request_id DESC LIMIT 10
            """, disagreeArguments).map {
                ShadowExample(requestId: $0[0].textValue ?? "", verdict: $0[1].textValue ?? "", primaryStatus: $0[2].integerValue.map(Int.init),
                              shadowStatus: $0[3].integerValue.map(Int.init), differences: $0[4].textValue ?? "")
            }
        (summary.primaryLatency, summary.shadowLatency) = try latencyPercentiles(filter)
        return summary
    }

    /// Nearest-rank p50/p95/p99 of the primary's and the shadow's latency over the comparisons
    /// `filter` selects. Up to `swiftSortLimit` comparisons (the rows with either latency) are
    /// read in one pass and each side's values sorted in Swift; each side was a count and a
    /// window function's sort in SQL, four passes over `shadow_comparisons`, about 0.3 s of a
    /// report's CPU over 100,000 comparisons. Beyond the limit the read stops and the ranks come
    /// from SQL's sort (``sortedLatencyPercentiles(_:)``), which spills to disk rather than
    /// growing the report's memory with the audit.
    func latencyPercentiles(_ filter: ReportFilter, swiftSortLimit: Int = AuditReader.latencySwiftSortLimit) throws(AuditError) -> (primary: Percentiles, shadow: Percentiles) {
        let (clause, arguments) = filter.whereClause(time: "compared_at", extra: ["(primary_latency_ms IS NOT NULL OR shadow_latency_ms IS NOT NULL)"])
        let rows = try query("SELECT primary_latency_ms, shadow_latency_ms FROM shadow_comparisons \(clause) LIMIT ?", arguments + [.integer(Int64(swiftSortLimit) + 1)])
        guard rows.count <= swiftSortLimit else { return try sortedLatencyPercentiles(filter) }
        var primary: [Double] = [], shadow: [Double] = []
        primary.reserveCapacity(rows.count)
        for row in rows {
            if row[0] != .null { primary.append(Self.double(row[0])) }
            if row[1] != .null { shadow.append(Self.double(row[1])) }
        }
        return (Self.nearestRank(&primary), Self.nearestRank(&shadow))
    }

    /// The most comparisons whose latencies a report sorts in its own memory (two 8-byte values
    /// each once read); more are ranked by the database's sort.
    static let latencySwiftSortLimit = 250_000

    /// ``latencyPercentiles(_:swiftSortLimit:)`` by SQL alone: both sides in one `UNION ALL`,
    /// numbered and counted per side by window functions, and only the rows at ranks
    /// ⌈0.5·n⌉, ⌈0.95·n⌉ and ⌈0.99·n⌉ (in integers: (p·n + 99) / 100) come back.
    func sortedLatencyPercentiles(_ filter: ReportFilter) throws(AuditError) -> (primary: Percentiles, shadow: Percentiles) {
        let (primaryClause, primaryArguments) = filter.whereClause(time: "compared_at", extra: ["primary_latency_ms IS NOT NULL"])
        let (shadowClause, shadowArguments) = filter.whereClause(time: "compared_at", extra: ["shadow_latency_ms IS NOT NULL"])
        let rows = try query("""
            SELECT side, rank, n, value FROM (
                SELECT side, value, row_number() OVER (PARTITION BY side ORDER BY value) AS rank, count(*) OVER (PARTITION BY side) AS n FROM (
                    SELECT 0 AS side, primary_latency_ms AS value FROM shadow_comparisons \(primaryClause)
                    UNION ALL
                    SELECT 1 AS side, shadow_latency_ms AS value FROM shadow_comparisons \(shadowClause)) AS sides) AS ranked
            WHERE rank IN ((n * 50 + 99) / 100, (n * 95 + 99) / 100, (n * 99 + 99) / 100)
            """, primaryArguments + shadowArguments)
        var sides = [Percentiles(), Percentiles()]
        for row in rows {
            guard row.count == 4, let side = row[0].integerValue, side == 0 || side == 1,
                  let rank = row[1].integerValue, let n = row[2].integerValue else { continue }
            let value = Self.double(row[3])
            if rank == (n * 50 + 99) / 100 { sides[Int(side)].p50 = value }
            if rank == (n * 95 + 99) / 100 { sides[Int(side)].p95 = value }
            if rank == (n * 99 + 99) / 100 { sides[Int(side)].p99 = value }
        }
        return (sides[0], sides[1])
    }

    /// Nearest-rank p50/p95/p99 of `values` (sorted in place): the value at rank ⌈p·n⌉, counted from 1.
    static func nearestRank(_ values: inout [Double]) -> Percentiles {
        guard !values.isEmpty else { return Percentiles() }
        values.sort()
        let sorted = values
        let at = { (p: Double) in sorted[max(1, Int((p * Double(sorted.count)).rounded(.up))) - 1] }
        return Percentiles(p50: at(0.5), p95: at(0.95), p99: at(0.99))
    }

    static func counts(_ dictionary: [String: Int]) -> [Count] {
        dictionary.map { Count($0.key, $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }
    }

    static func double(_ value: SQLiteValue) -> Double {
        switch value {
        case .real(let real): real
        case .integer(let integer): Double(integer)
        default: 0
        }
    }

    /// The most unhandled routes a report lists.
    static let unhandledRouteLimit = 20
}
