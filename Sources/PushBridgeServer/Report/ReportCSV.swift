/// The CSV report: one file, one row per figure, the first column naming the section.
///
/// Columns: `section,dialect,route,field,kind,name,count,share,first_seen,last_seen,apps,example_request_id,detail`.
/// Sections and the columns they fill (others are empty):
/// - `routes`: dialect, route, count (requests).
/// - `unhandled_routes`: dialect, route (`METHOD /path`), count (requests).
/// - `dropped`, `changes`, `rejections`, `caveats`: dialect, route, field, kind, count (requests),
///   share (0…1), first_seen/last_seen (RFC 3339), apps (`;`-separated), example_request_id, detail (message).
/// - `dropped_over_time`: name (bucket start, RFC 3339), count (dropped findings), detail (requests).
/// - `shadow_verdict`: name, count. `shadow_matrix`: name (`primary/shadow` status classes), count.
/// - `shadow_disagreement`: name (verdict), example_request_id, detail (differences).
/// - `shadow_latency`: name (`primary_p50` … `shadow_p99`), detail (ms). `shadow_error_rate`: name (side), share.
/// - `upstream_outcome`, `upstream_status`, `scheduled_send`: name, count.
/// - `upstream_retries`: name (`retried_requests`, `retries`, `rate_limited_attempts`, `rate_limit_wait_ms`), count.
/// - `summary`: name `total_requests`, `shadow_comparisons`, `shadow_disagreements` or
///   `shadow_expected_disagreements` (population gaps: phones not on OpenPush yet), count.
/// - `readiness`: dialect, route (empty for an app without traffic), name (the app), kind (the
///   verdict), count (requests), detail (the reasons, `; `-separated). `readiness_refused`: count
///   (requests refused before admission, counted in no verdict), detail. `readiness_legacy`,
///   `readiness_reach`, `readiness_accepted`, `readiness_note`, `readiness_next_step`: see
///   ``ReadinessRendering``'s CSV rows.
///
/// Every cell goes through ``CSVCell``: one starting with `=`, `+`, `-`, `@`, tab or CR gets a
/// leading `'`, control characters are written visibly (`\u{1B}`).
public enum ReportCSV {
    /// The header row's columns.
    public static let columns = ["section", "dialect", "route", "field", "kind", "name", "count", "share", "first_seen", "last_seen", "apps",
                                 "example_request_id", "detail"]

    /// The report as CSV text, every cell through ``CSVCell`` (formula-neutralised, control
    /// characters visible, RFC 4180 quoting), `\n` line ends.
    public static func render(_ r: Report) -> String {
        var rows: [[String]] = [columns]
        func add(_ section: String, dialect: String = "", route: String = "", field: String = "", kind: String = "", name: String = "",
                 count: String = "", share: String = "", first: String = "", last: String = "", apps: String = "", example: String = "", detail: String = "") {
            rows.append([section, dialect, route, field, kind, name, count, share, first, last, apps, example, detail])
        }
        add("summary", name: "total_requests", count: String(r.totalRequests))
        rows += ReadinessRendering.csvRows(r.readiness)
        for route in r.routes { add("routes", dialect: route.dialect, route: route.route, count: String(route.requests)) }
        for route in r.unhandled { add("unhandled_routes", dialect: route.dialect, route: route.route, count: String(route.requests)) }
        for section in ReportFormatting.findingSections(r) {
            for g in section.groups {
                add(section.id, dialect: g.dialect, route: g.route, field: g.field, kind: g.kind, count: String(g.requests),
                    share: String(ReportFormatting.share(g.share)), first: ReportFormatting.time(g.firstSeen), last: ReportFormatting.time(g.lastSeen),
                    apps: g.apps.joined(separator: ";"), example: g.exampleRequestId, detail: g.exampleMessage)
            }
        }
        for b in r.droppedOverTime {
            add("dropped_over_time", name: ReportFormatting.time(b.start), count: String(b.droppedFindings), detail: String(b.requests))
        }
        let s = r.shadow
        add("summary", name: "shadow_comparisons", count: String(s.comparisons))
        add("summary", name: "shadow_disagreements", count: String(s.disagreements))
        add("summary", name: "shadow_expected_disagreements", count: String(s.expectedDisagreements))
        for v in s.verdicts { add("shadow_verdict", name: v.name, count: String(v.count)) }
        for c in s.matrix { add("shadow_matrix", name: "\(c.primary)/\(c.shadow)", count: String(c.count)) }
        for e in s.disagreementExamples { add("shadow_disagreement", name: e.verdict, example: e.requestId, detail: e.differences) }
        if s.comparisons > 0 {
            for (side, p) in [("primary", s.primaryLatency), ("shadow", s.shadowLatency)] {
                for (name, value) in [("p50", p.p50), ("p95", p.p95), ("p99", p.p99)] {
                    add("shadow_latency", name: "\(side)_\(name)", detail: value.map { String($0) } ?? "")
                }
            }
            add("shadow_error_rate", name: "primary", share: String(ReportFormatting.share(s.primaryErrorRate)))
            add("shadow_error_rate", name: "shadow", share: String(ReportFormatting.share(s.shadowErrorRate)))
        }
        let u = r.upstream
        for o in u.outcomes { add("upstream_outcome", name: o.name, count: String(o.count)) }
        for o in u.statuses { add("upstream_status", name: o.name, count: String(o.count)) }
        add("upstream_retries", name: "retried_requests", count: String(u.retriedRequests))
        add("upstream_retries", name: "retries", count: String(u.retries))
        add("upstream_retries", name: "rate_limited_attempts", count: String(u.rateLimitedAttempts))
        add("upstream_retries", name: "rate_limit_wait_ms", count: String(Int(u.rateLimitWaitMs.rounded())))
        for o in u.scheduledSends { add("scheduled_send", name: o.name, count: String(o.count)) }
        return CSVCell.document(rows)
    }
}
