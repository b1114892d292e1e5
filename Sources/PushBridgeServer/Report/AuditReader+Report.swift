import PushBridgeCore

extension AuditReader {
    /// The report over the rows `filter` selects, its totals from the per-minute rollups (the
    /// log's rows for a window's partial edge minutes, ``reportTally(_:fromRows:)``), its
    /// readiness judged with `settings`. Apps are named as the configuration names them
    /// (`--app` takes either the name or the source app id); `inFlight` is the activity
    /// ledger's counts for the readiness section.
    public func report(_ reportFilter: ReportFilter = ReportFilter(), readiness settings: ReadinessSettings = ReadinessSettings(),
                       inFlight: [ActivityCount]? = nil) throws(AuditError) -> Report {
        try report(reportFilter, readiness: settings, inFlight: inFlight, fromRows: false)
    }

    /// The report, its totals read from the rows alone with `fromRows` (what an audit without
    /// rollups gives; the tests compare the two).
    func report(_ reportFilter: ReportFilter, readiness settings: ReadinessSettings, inFlight: [ActivityCount]?, fromRows: Bool) throws(AuditError) -> Report {
        if !fromRows { writeCarriedRollupsFirst() }
        var filter = reportFilter
        if let app = filter.app { filter.app = settings.apps.first { $0.name == app }?.sourceAppId ?? app }
        let tally = try reportTally(filter, fromRows: fromRows)
        let (routes, unhandled, upstream) = try routesAndUpstream(filter, tally)
        let denominators = Dictionary(uniqueKeysWithValues: routes.map { ("\($0.dialect)\u{1}\($0.route)", $0.requests) })
        let groups = try findingGroups(tally, denominators: denominators)
        return try assemble(reportFilter, settings: settings, inFlight: inFlight, routes: routes, unhandled: unhandled, upstream: upstream, groups: groups,
                            droppedOverTime: droppedOverTime(tally), rolledFindings: tally.rolledFindings)
    }

    /// The report from its parts: groups named by app and sorted by impact, with the shadow
    /// summary and readiness over the same filter (its finding groups from `rolledFindings`,
    /// the report's own read of the findings rollups, where that read is readiness's too).
    func assemble(_ reportFilter: ReportFilter, settings: ReadinessSettings, inFlight: [ActivityCount]?, routes: [RouteTotal], unhandled: [RouteTotal],
                  upstream: UpstreamSummary, groups found: [FindingGroup], droppedOverTime: [TimeBucket],
                  rolledFindings: RolledFindingGroups? = nil) throws(AuditError) -> Report {
        var filter = reportFilter
        if let app = filter.app { filter.app = settings.apps.first { $0.name == app }?.sourceAppId ?? app }
        var groups = found
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
            droppedOverTime: droppedOverTime,
            shadow: try shadowSummary(filter), upstream: upstream, unhandled: unhandled, readiness: try readiness(reportFilter, settings: settings, inFlight: inFlight, rolledFindings: rolledFindings))
    }

    /// The finding groups of `tally`: a group that folded array indices counts requests (each
    /// once), any other its findings, as the report always has; its example's message read
    /// from the log (the example request's first finding in the group).
    func findingGroups(_ tally: ReportTally, denominators: [String: Int]) throws(AuditError) -> [FindingGroup] {
        var groups: [FindingGroup] = []
        for (key, figures) in tally.groups {
            let requests = Int(figures.indexed ? figures.requests : figures.findings)
            let denominator = denominators["\(key.dialect)\u{1}\(key.route)"] ?? 0
            let message = try query("SELECT field, message FROM findings WHERE request_id = ? AND kind = ? ORDER BY ordinal", [.text(figures.exampleId), .text(key.kind)])
                .first { FieldPath.folded($0[0].textValue ?? "") == key.field }?[1].textValue ?? ""
            groups.append(FindingGroup(dialect: key.dialect, route: key.route, field: key.field, kind: key.kind, requests: requests,
                                       share: denominator > 0 ? Double(requests) / Double(denominator) : 0, firstSeen: figures.firstAt, lastSeen: figures.lastAt,
                                       apps: figures.apps.sorted(), exampleRequestId: figures.exampleId, exampleMessage: message))
        }
        return groups
    }

    /// Requests and dropped findings per bucket (about 24 over the span of the requests), from
    /// the tally's minutes (every bucket width is whole minutes).
    func droppedOverTime(_ tally: ReportTally) -> [TimeBucket] {
        guard let low = tally.firstAt, let high = tally.lastAt else { return [] }
        let width = Self.bucketWidth(high - low)
        let start = low - low % width
        let bucketCount = Int((high - start) / width) + 1
        var buckets = (0..<bucketCount).map { TimeBucket(start: start + Int64($0) * width, requests: 0, droppedFindings: 0) }
        func index(_ minute: Int64) -> Int? {
            let position = Int((minute * 60_000 - start) / width)
            return buckets.indices.contains(position) ? position : nil
        }
        for (minute, count) in tally.perMinute { if let i = index(minute) { buckets[i].requests += count } }
        for (minute, count) in tally.droppedPerMinute { if let i = index(minute) { buckets[i].droppedFindings += count } }
        return buckets
    }

    /// A round bucket width (minute, 5 min, 15 min, hour, 6 h, day, week) giving at most ~24 buckets.
    static func bucketWidth(_ span: Int64) -> Int64 {
        let widths: [Int64] = [60_000, 300_000, 900_000, 3_600_000, 21_600_000, 86_400_000, 604_800_000]
        return widths.first { span / $0 < 24 } ?? 2_592_000_000
    }

    func placeholders(_ count: Int) -> String { Array(repeating: "?", count: max(1, count)).joined(separator: ", ") }
}
