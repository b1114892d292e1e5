/// One read of the findings rollups over a window's whole minutes and hours, for both the
/// report's finding groups and the readiness it embeds (issue 30, "report over 1,000,000 rows
/// ≤ 2 s"): grouped by dialect, route, field, kind, source app and app name, with the report's
/// figures and readiness's judged ones side by side, so a report groups and sorts
/// `rollup_findings_hourly` once where it did twice (its own groups by source app, readiness's
/// by app name and shown kind).
///
/// Readiness takes it only for the very rows it was read for (``serves(_:)``): the same
/// window, dialect and route, and no app filter (the report's `--app` is a source app id,
/// readiness's matches an app's configured name too); any other scope, such as an app judged
/// since its current stage began, reads its own.
struct RolledFindingGroups {
    /// One group of the read: a key of the rollups without its minute and instance, and its figures.
    struct Row {
        var dialect, route, field, kind, sourceApp, appName: String
        /// The report's figures: requests (each once), findings, whether array indices were
        /// folded, the first and last finding's time (nil: none), the newest example.
        var requests, findings: Int64
        var indexed: Bool
        var firstAt, lastAt: Int64?
        var example: String
        /// Readiness's figures: requests with a judged finding, and the newest of them ("" when none).
        var judged: Int64
        var judgedExample: String
    }

    /// The report's filter the rows were read with (its app, when set, a source app id).
    let filter: ReportFilter
    /// The groups.
    let rows: [Row]

    /// Reads the groups of `table`'s rows (``AuditReader/rollupSource(_:_:)`` over the window)
    /// that `clause` selects.
    static func read(_ reader: AuditReader, filter: ReportFilter, from table: String, _ clause: String,
                     _ arguments: [SQLiteValue]) throws(AuditError) -> RolledFindingGroups {
        let rows = try reader.query("""
            SELECT dialect, route, field, kind, source_app, app_name, sum(requests), sum(findings), max(indexed), min(first_at), max(last_at),
                   max(example_request_id), sum(judged_requests), max(CASE WHEN judged_requests <> 0 THEN judged_example_request_id END)
            FROM \(table) \(clause) GROUP BY dialect, route, field, kind, source_app, app_name
            """, arguments).map { row in
            Row(dialect: row[0].textValue ?? "", route: row[1].textValue ?? "", field: row[2].textValue ?? "", kind: row[3].textValue ?? "",
                sourceApp: row[4].textValue ?? "", appName: row[5].textValue ?? "", requests: row[6].integerValue ?? 0, findings: row[7].integerValue ?? 0,
                indexed: row[8].integerValue == 1, firstAt: row[9].integerValue, lastAt: row[10].integerValue, example: row[11].textValue ?? "",
                judged: row[12].integerValue ?? 0, judgedExample: row[13].textValue ?? "")
        }
        return RolledFindingGroups(filter: filter, rows: rows)
    }

    /// Whether readiness over `scope` reads exactly these rows: the filter it was read with,
    /// without an app.
    func serves(_ scope: AuditReader.ReadinessScope) -> Bool {
        filter.app == nil && scope.appNames.isEmpty && scope.filter == filter
    }

    /// The report's groups (by dialect, route, field, kind and source app, app names added
    /// up as a `GROUP BY` of those five would: sums, earliest, latest, newest, zero rows
    /// included), added to `tally`.
    func addReportGroups(to tally: inout ReportTally) {
        struct Key: Hashable {
            var group: ReportTally.GroupKey
            var sourceApp: String
        }
        var merged: [Key: Row] = [:]
        for row in rows {
            let key = Key(group: ReportTally.GroupKey(dialect: row.dialect, route: row.route, field: row.field, kind: row.kind), sourceApp: row.sourceApp)
            guard var sum = merged[key] else {
                merged[key] = row
                continue
            }
            sum.requests += row.requests
            sum.findings += row.findings
            sum.indexed = sum.indexed || row.indexed
            sum.firstAt = [sum.firstAt, row.firstAt].compactMap { $0 }.min()
            sum.lastAt = [sum.lastAt, row.lastAt].compactMap { $0 }.max()
            sum.example = max(sum.example, row.example)
            merged[key] = sum
        }
        for (key, row) in merged {
            tally.add(key.group, minute: nil, app: key.sourceApp, requests: row.requests, findings: row.findings, indexed: row.indexed,
                      first: row.firstAt ?? 0, last: row.lastAt ?? 0, example: row.example)
        }
    }

    /// Readiness's groups: the rows with a dialect, a route and a judged request, by app
    /// (its configured name, else its source app id), dialect, route, field and shown kind.
    func readinessCounts() -> [AuditReader.ReadinessFindingGroup: AuditReader.ReadinessFindingCount] {
        var counts: [AuditReader.ReadinessFindingGroup: AuditReader.ReadinessFindingCount] = [:]
        for row in rows where !row.dialect.isEmpty && !row.route.isEmpty && row.judged != 0 {
            let key = AuditReader.ReadinessKey(app: row.appName.isEmpty ? row.sourceApp : row.appName, dialect: row.dialect, route: row.route)
            let group = AuditReader.ReadinessFindingGroup(key: key, field: row.field, kind: ReadinessFindingRule.shownKind(row.kind))
            counts[group, default: AuditReader.ReadinessFindingCount()] = counts[group, default: AuditReader.ReadinessFindingCount()]
                + AuditReader.ReadinessFindingCount(requests: Int(row.judged), example: row.judgedExample)
        }
        return counts
    }
}
