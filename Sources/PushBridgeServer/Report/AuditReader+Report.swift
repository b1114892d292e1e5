import PushBridgeCore

extension AuditReader {
    /// The report over the rows `filter` selects, from SQL aggregates (GROUP BY on the indexed
    /// `findings` table; no per-row work in Swift), its readiness judged with `readiness`.
    /// Apps are named as the configuration names them (`--app` takes either the name or the
    /// source app id); `inFlight` is the activity ledger's counts for the readiness section.
    public func report(_ reportFilter: ReportFilter = ReportFilter(), readiness settings: ReadinessSettings = ReadinessSettings(),
                       inFlight: [ActivityCount]? = nil) throws(AuditError) -> Report {
        var filter = reportFilter
        if let app = filter.app { filter.app = settings.apps.first { $0.name == app }?.sourceAppId ?? app }
        let (routes, unhandled, upstream) = try routesAndUpstream(filter)
        let denominators = Dictionary(uniqueKeysWithValues: routes.map { ("\($0.dialect)\u{1}\($0.route)", $0.requests) })
        var (groups, droppedPaths) = try findingGroups(filter, denominators: denominators)
        for index in groups.indices {
            var names: [String] = []
            for app in groups[index].apps.map(settings.displayName(of:)) where !names.contains(app) { names.append(app) }
            groups[index].apps = names.sorted()
        }
        let changeKinds: Set<String> = ["renamed", "converted", "rescaled", "defaulted", "synthesized", "escaped", "coerced"]
        let byImpact: (FindingGroup, FindingGroup) -> Bool = { a, b in
            if a.share != b.share { return a.share > b.share }
            if a.requests != b.requests { return a.requests > b.requests }
            return (a.dialect, a.route, a.field, a.kind) < (b.dialect, b.route, b.field, b.kind)
        }
        return Report(
            filter: reportFilter, totalRequests: (routes + unhandled).reduce(0) { $0 + $1.requests }, routes: routes,
            dropped: groups.filter { $0.kind == "dropped" }.sorted(by: byImpact),
            changes: groups.filter { changeKinds.contains($0.kind) }.sorted(by: byImpact),
            rejections: groups.filter { $0.kind == "rejected" }.sorted(by: byImpact),
            caveats: groups.filter { $0.kind == "caveat" }.sorted(by: byImpact),
            droppedOverTime: try droppedOverTime(filter, droppedPaths: droppedPaths),
            shadow: try shadowSummary(filter), upstream: upstream, unhandled: unhandled, readiness: try readiness(reportFilter, settings: settings, inFlight: inFlight))
    }

    /// One pass over the covering index `findings_by_field` in its own order (no sort), apps
    /// gathered with `group_concat(DISTINCT …)` (so an app id must not contain a comma); merged in
    /// Swift by folded field; groups that folded several paths are recounted by distinct request.
    /// Also returns the raw (dialect, route, field) of every dropped group, for ``droppedOverTime(_:droppedPaths:)``.
    func findingGroups(_ filter: ReportFilter, denominators: [String: Int]) throws(AuditError) -> ([FindingGroup], [[String]]) {
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
                group.requests = try distinctRequests(filter, key.dialect, key.route, key.kind, paths: Array(entry.paths))
            }
            let denominator = denominators["\(key.dialect)\u{1}\(key.route)"] ?? 0
            group.share = denominator > 0 ? Double(group.requests) / Double(denominator) : 0
            group.exampleMessage = try query("SELECT message FROM findings WHERE request_id = ? AND kind = ? AND field IN (\(placeholders(entry.paths.count))) ORDER BY ordinal LIMIT 1",
                                             [.text(group.exampleRequestId), .text(key.kind)] + entry.paths.sorted().map { .text($0) }).first?.first?.textValue ?? ""
            groups.append(group)
        }
        return (groups, droppedPaths)
    }

    private func distinctRequests(_ filter: ReportFilter, _ dialect: String, _ route: String, _ kind: String, paths: [String]) throws(AuditError) -> Int {
        let (clause, arguments) = filter.whereClause(extra: ["kind = ?", "field IN (\(placeholders(paths.count)))"])
        let sql = "SELECT count(DISTINCT request_id) FROM findings \(clause) AND dialect = ? AND route = ?"
        let values: [SQLiteValue] = [.text(kind)] + paths.map { .text($0) } + arguments + [.text(dialect), .text(route)]
        return Int(try query(sql, values).first?.first?.integerValue ?? 0)
    }

    /// Requests and dropped findings per bucket (about 24 over the filtered span), by range
    /// counts: each dropped path's findings are contiguous and time-ordered in `findings_by_field`.
    func droppedOverTime(_ filter: ReportFilter, droppedPaths: [[String]]) throws(AuditError) -> [TimeBucket] {
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

    /// A round bucket width (minute, 5 min, 15 min, hour, 6 h, day, week) giving at most ~24 buckets.
    static func bucketWidth(_ span: Int64) -> Int64 {
        let widths: [Int64] = [60_000, 300_000, 900_000, 3_600_000, 21_600_000, 86_400_000, 604_800_000]
        return widths.first { span / $0 < 24 } ?? 2_592_000_000
    }

    func placeholders(_ count: Int) -> String { Array(repeating: "?", count: max(1, count)).joined(separator: ", ") }
}
