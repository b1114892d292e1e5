import PushBridgeCore
@testable import PushBridgeServer

/// The report as it was computed before the rollups (issue 30): every total by SQL over the
/// rows. Kept as the oracle ``ReportRollupTests`` compares the rollups' report with.

extension AuditReader {
    /// The report over the rows `filter` selects, from SQL aggregates (GROUP BY on the indexed
    /// `findings` table; no per-row work in Swift), its readiness judged with `readiness`.
    /// Apps are named as the configuration names them (`--app` takes either the name or the
    /// source app id); `inFlight` is the activity ledger's counts for the readiness section.
    func oracleReport(_ reportFilter: ReportFilter = ReportFilter(), readiness settings: ReadinessSettings = ReadinessSettings(),
                       inFlight: [ActivityCount]? = nil) throws(AuditError) -> Report {
        var filter = reportFilter
        if let app = filter.app { filter.app = settings.apps.first { $0.name == app }?.sourceAppId ?? app }
        let (routes, unhandled, upstream) = try oracleRoutesAndUpstream(filter)
        let denominators = Dictionary(uniqueKeysWithValues: routes.map { ("\($0.dialect)\u{1}\($0.route)", $0.requests) })
        let (groups, droppedPaths) = try oracleFindingGroups(filter, denominators: denominators)
        return try assemble(reportFilter, settings: settings, inFlight: inFlight, routes: routes, unhandled: unhandled, upstream: upstream, groups: groups,
                            droppedOverTime: try oracleDroppedOverTime(filter, droppedPaths: droppedPaths))
    }

    /// One pass over `findings` (through `findings_by_field` until migration 14 dropped it), apps
    /// gathered with `group_concat(DISTINCT …)` (so an app id must not contain a comma); merged in
    /// Swift by folded field; groups that folded several paths are recounted by distinct request.
    /// Also returns the raw (dialect, route, field) of every dropped group, for ``droppedOverTime(_:droppedPaths:)``.
    func oracleFindingGroups(_ filter: ReportFilter, denominators: [String: Int]) throws(AuditError) -> ([FindingGroup], [[String]]) {
        let (clause, arguments) = filter.whereClause()
        let rows = try query("""
            SELECT dialect, route, field, kind, group_concat(DISTINCT source_app), count(*), min(received_at), max(received_at), max(request_id)
            FROM findings \(clause) GROUP BY dialect, route, field, kind
            """, arguments)
        struct Key: Hashable { var dialect, route, field, kind: String }
        var merged: [Key: (group: FindingGroup, paths: Set<String>, appCounts: Int)] = [:]
        for row in rows {
            let field = row[2].textValue ?? ""
            let key = Key(dialect: row[0].textValue ?? "", route: row[1].textValue ?? "", field: FieldPath.folded(field), kind: row[3].textValue ?? "")
            let count = Int(row[5].integerValue ?? 0), first = row[6].integerValue ?? 0, last = row[7].integerValue ?? 0
            let example = row[8].textValue ?? ""
            var entry = merged[key] ?? (FindingGroup(dialect: key.dialect, route: key.route, field: key.field, kind: key.kind, requests: 0, share: 0,
                                                     firstSeen: first, lastSeen: last, apps: [], exampleRequestId: example, exampleMessage: ""), [], 0)
            entry.group.requests += count
            entry.group.firstSeen = min(entry.group.firstSeen, first)
            entry.group.lastSeen = max(entry.group.lastSeen, last)
            if example > entry.group.exampleRequestId { entry.group.exampleRequestId = example }
            for app in (row[4].textValue ?? "").split(separator: ",") where !entry.group.apps.contains(String(app)) { entry.group.apps.append(String(app)) }
            entry.paths.insert(field)
            merged[key] = entry
        }
        var groups: [FindingGroup] = []
        var droppedPaths: [[String]] = []
        for (key, entry) in merged {
            if key.kind == "dropped" { droppedPaths += entry.paths.sorted().map { [key.dialect, key.route, $0] } }
            var group = entry.group
            group.apps.sort()
            if entry.paths.count > 1 || key.field != entry.paths.first {
                group.requests = try oracleDistinctRequests(filter, key.dialect, key.route, key.kind, paths: Array(entry.paths))
            }
            let denominator = denominators["\(key.dialect)\u{1}\(key.route)"] ?? 0
            group.share = denominator > 0 ? Double(group.requests) / Double(denominator) : 0
            group.exampleMessage = try query("SELECT message FROM findings WHERE request_id = ? AND kind = ? AND field IN (\(placeholders(entry.paths.count))) ORDER BY ordinal LIMIT 1",
                                             [.text(group.exampleRequestId), .text(key.kind)] + entry.paths.sorted().map { .text($0) }).first?.first?.textValue ?? ""
            groups.append(group)
        }
        return (groups, droppedPaths)
    }

    private func oracleDistinctRequests(_ filter: ReportFilter, _ dialect: String, _ route: String, _ kind: String, paths: [String]) throws(AuditError) -> Int {
        let (clause, arguments) = filter.whereClause(extra: ["kind = ?", "field IN (\(placeholders(paths.count)))"])
        let sql = "SELECT count(DISTINCT request_id) FROM findings \(clause) AND dialect = ? AND route = ?"
        let values: [SQLiteValue] = [.text(kind)] + paths.map { .text($0) } + arguments + [.text(dialect), .text(route)]
        return Int(try query(sql, values).first?.first?.integerValue ?? 0)
    }

    /// Requests and dropped findings per bucket (about 24 over the filtered span), by range
    /// counts over each dropped path's findings.
    func oracleDroppedOverTime(_ filter: ReportFilter, droppedPaths: [[String]]) throws(AuditError) -> [TimeBucket] {
        let (clause, arguments) = filter.whereClause()
        guard let span = try query("SELECT min(received_at), max(received_at) FROM requests \(clause)", arguments).first,
              let low = span[0].integerValue, let high = span[1].integerValue else { return [] }
        let width = Self.bucketWidth(high - low)
        let start = low - low % width
        let bucketCount = Int((high - start) / width) + 1
        var buckets = (0..<bucketCount).map { TimeBucket(start: start + Int64($0) * width, requests: 0, droppedFindings: 0) }
        for index in buckets.indices {
            let (range, rangeArguments) = filter.whereClause(extra: ["received_at >= \(buckets[index].start)", "received_at < \(buckets[index].start + width)"])
            buckets[index].requests = Int(try query("SELECT count(*) FROM requests \(range)", rangeArguments).first?.first?.integerValue ?? 0)
        }
        for path in droppedPaths {
            for index in buckets.indices {
                let (range, rangeArguments) = filter.whereClause(extra: ["kind = 'dropped'", "dialect = ?", "route = ?", "field = ?",
                                                                         "received_at >= \(buckets[index].start)", "received_at < \(buckets[index].start + width)"])
                let count = try query("SELECT count(*) FROM findings \(range)", path.map { .text($0) } + rangeArguments).first?.first?.integerValue ?? 0
                buckets[index].droppedFindings += Int(count)
            }
        }
        return buckets
    }

}

extension AuditReader {
    /// Requests per route (unhandled routes apart, most frequent first, at most
    /// ``unhandledRouteLimit``), outcomes and statuses in one pass over the covering index
    /// `requests_outcomes`; retries and rate-limit waits (partial index `requests_retried`: only
    /// rows with more than one attempt are read); scheduled sends by state.
    func oracleRoutesAndUpstream(_ filter: ReportFilter) throws(AuditError) -> ([RouteTotal], [RouteTotal], UpstreamSummary) {
        var summary = UpstreamSummary()
        let (clause, arguments) = filter.whereClause()
        var outcomes: [String: Int] = [:], statuses: [String: Int] = [:], routes: [String: Int] = [:], unhandled: [String: Int] = [:]
        for row in try query("SELECT outcome, upstream_status, dialect, route, count(*) FROM requests \(clause) GROUP BY outcome, upstream_status, dialect, route", arguments) {
            let count = Int(row[4].integerValue ?? 0)
            outcomes[row[0].textValue ?? "", default: 0] += count
            statuses[row[1].integerValue.map { String($0) } ?? "none", default: 0] += count
            let key = (row[2].textValue ?? "") + "\u{1}" + (row[3].textValue ?? "")
            if row[0].textValue == AuditOutcome.unhandled.rawValue { unhandled[key, default: 0] += count } else { routes[key, default: 0] += count }
        }
        let totals: ([String: Int]) -> [RouteTotal] = { counts in
            counts.map { key, count in
                let parts = key.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
                return RouteTotal(dialect: parts[0], route: parts[1], requests: count)
            }
        }
        let routeTotals = totals(routes).sorted { ($0.dialect, $0.route) < ($1.dialect, $1.route) }
        let unhandledTotals = totals(unhandled).sorted { ($1.requests, $0.dialect, $0.route) < ($0.requests, $1.dialect, $1.route) }.prefix(Self.unhandledRouteLimit)
        summary.outcomes = Self.counts(outcomes)
        summary.statuses = Self.counts(statuses)
        // One pass over the rows with retries (partial index): retries, 429s followed by another attempt, the wait after them.
        let (retried, retriedArguments) = filter.whereClause(extra: ["json_array_length(attempts) > 1"])
        let limited = "json_extract(a.value, '$.status') = 429 AND a.key < json_array_length(attempts) - 1"
        let wait = "max(0, json_extract(attempts, '$[' || (a.key + 1) || '].at') - json_extract(a.value, '$.at') - json_extract(a.value, '$.latency_ms'))"
        if let row = try query("""
            SELECT count(*), coalesce(sum(json_array_length(attempts) - 1), 0),
                   coalesce(sum((SELECT count(*) FROM json_each(attempts) AS a WHERE \(limited))), 0),
                   coalesce(sum((SELECT sum(\(wait)) FROM json_each(attempts) AS a WHERE \(limited))), 0)
            FROM requests \(retried)
            """, retriedArguments).first {
            summary.retriedRequests = Int(row[0].integerValue ?? 0)
            summary.retries = Int(row[1].integerValue ?? 0)
            summary.rateLimitedAttempts = Int(row[2].integerValue ?? 0)
            summary.rateLimitWaitMs = Self.double(row[3])
        }
        summary.scheduledSends = try scheduledSends(filter)
        return (routeTotals, Array(unhandledTotals), summary)
    }

}

extension AuditReader {
    /// Nearest-rank p50/p95/p99 of a latency column over the comparisons `filter` selects (by
    /// `compared_at`), by SQL: a count and a window function's sort, as the report computed
    /// them before it read both columns in one pass (``latencyPercentiles(_:)``).
    func oraclePercentiles(_ column: String, _ filter: ReportFilter) throws(AuditError) -> Percentiles {
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
}
