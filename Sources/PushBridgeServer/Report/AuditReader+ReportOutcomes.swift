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
        let statusClass = { (side: String) in "CASE WHEN \(side)_status IS NULL OR \(side)_error IS NOT NULL THEN 'error' ELSE (\(side)_status / 100) || 'xx' END" }
        var verdicts: [String: Int] = [:], cells: [String: Int] = [:], primaryErrors = 0, shadowErrors = 0
        let expected = PopulationGap.expectedDisagreementSQL()
        for row in try query("""
            SELECT verdict, \(statusClass("primary")), \(statusClass("shadow")), count(*), sum(CASE WHEN \(expected) THEN 1 ELSE 0 END)
            FROM shadow_comparisons s \(clause) GROUP BY 1, 2, 3
            """, arguments) {
            let primary = row[1].textValue ?? "", shadow = row[2].textValue ?? "", count = Int(row[3].integerValue ?? 0), gaps = Int(row[4].integerValue ?? 0)
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
        summary.primaryLatency = try percentiles("primary_latency_ms", filter)
        summary.shadowLatency = try percentiles("shadow_latency_ms", filter)
        return summary
    }

    /// Nearest-rank p50/p95/p99 of a latency column: one sort, three row numbers.
    private func percentiles(_ column: String, _ filter: ReportFilter) throws(AuditError) -> Percentiles {
        let (clause, arguments) = filter.whereClause(time: "compared_at", extra: ["\(column) IS NOT NULL"])
        let n = Int(try query("SELECT count(*) FROM shadow_comparisons \(clause)", arguments).first?.first?.integerValue ?? 0)
        guard n > 0 else { return Percentiles() }
        let ranks = [0.5, 0.95, 0.99].map { max(1, Int64(($0 * Double(n)).rounded(.up))) }
        let rows = try query("""
            SELECT rank, value FROM (SELECT row_number() OVER (ORDER BY \(column)) AS rank, \(column) AS value FROM shadow_comparisons \(clause)) AS ranked
            WHERE rank IN (?, ?, ?)
            """, arguments + ranks.map { .integer($0) })
        var values: [Int64: Double] = [:]
        for row in rows { values[row[0].integerValue ?? 0] = Self.double(row[1]) }
        return Percentiles(p50: values[ranks[0]], p95: values[ranks[1]], p99: values[ranks[2]])
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
