import PushBridgeCore

extension AuditReader {
    /// A finding group readiness shows: a route of one app, the field with its array indices
    /// folded (``FieldPath``) and the kind as shown (``ReadinessFindingRule/shownKind(_:)``).
    struct ReadinessFindingGroup: Hashable {
        var key: ReadinessKey
        var field, kind: String
    }

    /// A group's figures: the requests with a judged finding in it (each once) and the newest.
    struct ReadinessFindingCount {
        var requests = 0
        var example = ""

        /// The figures of two disjoint sets of requests (other minutes) together.
        static func + (a: ReadinessFindingCount, b: ReadinessFindingCount) -> ReadinessFindingCount {
            ReadinessFindingCount(requests: a.requests + b.requests, example: max(a.example, b.example))
        }
    }

    /// The findings readiness judges (``ReadinessFindingRule``) per route: warnings and
    /// rejections, each group's requests counted once however many of its paths they had, its
    /// share of the route's requests (`totals`), and its newest request as the example with
    /// that request's first judged finding in the group as the message. Whole minutes from
    /// `rollup_findings` (whole hours from `rollup_findings_hourly`), a window's partial edge
    /// minutes from the log's rows. The rollups' groups are `rolledFindings` (a report's read)
    /// when that read is of exactly these rows (``RolledFindingGroups/serves(_:)``).
    func readinessFindings(_ scope: ReadinessScope, totals: [ReadinessKey: RouteReadiness], rolledFindings: RolledFindingGroups? = nil)
        throws(AuditError) -> [ReadinessKey: (warnings: [ReadinessFinding], rejections: [ReadinessFinding])] {
        let counts = try fromRollups(scope, merging: +, rollups: { window throws(AuditError) in
            if let rolledFindings, rolledFindings.serves(scope) { return rolledFindings.readinessCounts() }
            return try readinessFindingCounts(scope, window)
        }, rows: { scope throws(AuditError) in
            try readinessFindingCounts(scope)
        })
        var out: [ReadinessKey: (warnings: [ReadinessFinding], rejections: [ReadinessFinding])] = [:]
        for (group, count) in counts where count.requests != 0 {
            let total = totals[group.key]?.requests ?? 0
            let finding = ReadinessFinding(field: group.field, kind: group.kind, requests: count.requests,
                                           share: total > 0 ? Double(count.requests) / Double(total) : 0, exampleRequestId: count.example,
                                           exampleMessage: try readinessExampleMessage(count.example, group))
            if group.kind == "rejected" || group.kind == "openpush rule" { out[group.key, default: ([], [])].rejections.append(finding) }
            else { out[group.key, default: ([], [])].warnings.append(finding) }
        }
        let widest: (ReadinessFinding, ReadinessFinding) -> Bool = { ($1.requests, $0.field, $0.kind) < ($0.requests, $1.field, $1.kind) }
        return out.mapValues { ($0.warnings.sorted(by: widest), $0.rejections.sorted(by: widest)) }
    }

    /// The groups' figures over `window`'s whole minutes and hours, from the findings rollups.
    /// Only rows with a judged request are read: the others add nothing to a group (its sum,
    /// its example) and a group of none is left out, so the sort sees fewer rows (48,485 of
    /// 67,250 hourly rows on the 1,000,000-row bench; about a fifth less CPU in `sqlite3`).
    private func readinessFindingCounts(_ scope: ReadinessScope, _ window: RollupWindow)
        throws(AuditError) -> [ReadinessFindingGroup: ReadinessFindingCount] {
        let (from, clause, arguments) = readinessRollupClause(scope, .findings, window, extra: ["judged_requests <> 0"])
        let rows = try query("""
            SELECT \(Self.rollupAppKey), dialect, route, field, \(ReadinessFindingRule.shownKindSQL("kind")), sum(judged_requests),
                   max(CASE WHEN judged_requests <> 0 THEN judged_example_request_id END)
            FROM \(from) \(clause) GROUP BY 1, 2, 3, 4, 5 HAVING sum(judged_requests) != 0
            """, arguments)
        var counts: [ReadinessFindingGroup: ReadinessFindingCount] = [:]
        for row in rows {
            let group = ReadinessFindingGroup(key: key(row), field: row[3].textValue ?? "", kind: row[4].textValue ?? "")
            counts[group, default: ReadinessFindingCount()] = counts[group, default: ReadinessFindingCount()]
                + ReadinessFindingCount(requests: Int(row[5].integerValue ?? 0), example: row[6].textValue ?? "")
        }
        return counts
    }

    /// The groups' figures over the rows `scope` selects (a window's edge, or an audit without
    /// rollups): counted per path, and a group that folded several paths recounted by request.
    private func readinessFindingCounts(_ scope: ReadinessScope) throws(AuditError) -> [ReadinessFindingGroup: ReadinessFindingCount] {
        let (clause, arguments) = readinessClause(scope, extra: [ReadinessFindingRule.sql])
        let rows = try query("""
            SELECT \(appKey), r.dialect, r.route, f.field, \(ReadinessFindingRule.shownKindSQL("f.kind")), count(DISTINCT f.request_id), max(f.request_id)
            FROM findings f JOIN requests r ON r.request_id = f.request_id \(clause) GROUP BY 1, 2, 3, 4, 5
            """, arguments)
        var counts: [ReadinessFindingGroup: (count: ReadinessFindingCount, paths: [String])] = [:]
        for row in rows {
            let group = ReadinessFindingGroup(key: key(row), field: FieldPath.folded(row[3].textValue ?? ""), kind: row[4].textValue ?? "")
            var entry = counts[group] ?? (ReadinessFindingCount(), [])
            entry.count = entry.count + ReadinessFindingCount(requests: Int(row[5].integerValue ?? 0), example: row[6].textValue ?? "")
            entry.paths.append(row[3].textValue ?? "")
            counts[group] = entry
        }
        for (group, entry) in counts where entry.paths.count > 1 {
            let (recount, recountArguments) = readinessClause(scope, extra: [ReadinessFindingRule.sql, "f.kind = ?", "f.field IN (\(placeholders(entry.paths.count)))",
                                                                             "r.dialect = ?", "r.route = ?", "\(appKey) = ?"])
            let values: [SQLiteValue] = [.text(Self.storedKind(group.kind))] + entry.paths.map { .text($0) }
                + [.text(group.key.dialect), .text(group.key.route), .text(group.key.app)]
            counts[group]?.count.requests = Int(try query("SELECT count(DISTINCT f.request_id) FROM findings f JOIN requests r ON r.request_id = f.request_id \(recount)",
                                                          values + recountArguments).first?.first?.integerValue ?? 0)
        }
        return counts.mapValues(\.count)
    }

    /// The example request's first judged finding in `group` (by ordinal), read from the log.
    private func readinessExampleMessage(_ requestId: String, _ group: ReadinessFindingGroup) throws(AuditError) -> String {
        try query("SELECT f.field, f.message FROM findings f WHERE f.request_id = ? AND f.kind = ? AND \(ReadinessFindingRule.sql) ORDER BY f.ordinal",
                  [.text(requestId), .text(Self.storedKind(group.kind))])
            .first { FieldPath.folded($0[0].textValue ?? "") == group.field }?[1].textValue ?? ""
    }

    /// The kind stored in the audit for a kind readiness shows.
    private static func storedKind(_ shown: String) -> String { shown == "openpush rule" ? "caveat" : shown }
}
