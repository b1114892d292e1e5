/// The report for a terminal: a heading per section and aligned columns.
enum ReportText {
    static func render(_ r: Report) -> String {
        var out = "PushBridge diff report — \(r.totalRequests) requests"
        if !r.filter.summary.isEmpty { out += " (\(r.filter.summary))" }
        out += "\n"
        out += section("Requests by route", ["dialect", "route", "requests"], r.routes.map { [$0.dialect, $0.route, String($0.requests)] })
        for s in ReportFormatting.findingSections(r) {
            let rows = s.groups.map { g in
                [g.dialect, g.route, g.field, g.kind, String(g.requests), ReportFormatting.percent(g.share), ReportFormatting.shortTime(g.firstSeen),
                 ReportFormatting.shortTime(g.lastSeen), ReportFormatting.apps(g.apps), g.exampleRequestId]
            }
            out += section(s.title, ["dialect", "route", "field", "kind", "requests", "share", "first seen", "last seen", "apps", "example"], rows)
        }
        out += "\nShadow comparison\n"
        let sh = r.shadow
        if sh.comparisons == 0 {
            out += "  no shadow traffic\n"
        } else {
            out += "  \(sh.comparisons) comparisons, \(sh.disagreements) disagreements; errors: primary \(ReportFormatting.percent(sh.primaryErrorRate)), shadow \(ReportFormatting.percent(sh.shadowErrorRate))\n"
            out += section("Verdicts", ["verdict", "count"], sh.verdicts.map { [$0.name, String($0.count)] }, level: 2)
            out += section("Primary × shadow", ["primary", "shadow", "count"], sh.matrix.map { [$0.primary, $0.shadow, String($0.count)] }, level: 2)
            out += section("Latency", ["side", "p50", "p95", "p99"], [("primary", sh.primaryLatency), ("shadow", sh.shadowLatency)].map {
                [$0.0, ReportFormatting.ms($0.1.p50), ReportFormatting.ms($0.1.p95), ReportFormatting.ms($0.1.p99)]
            }, level: 2)
            out += section("Disagreements", ["request", "verdict", "primary", "shadow", "differences"], sh.disagreementExamples.map {
                [$0.requestId, $0.verdict, $0.primaryStatus.map { String($0) } ?? "error", $0.shadowStatus.map { String($0) } ?? "error", $0.differences]
            }, level: 2)
        }
        let u = r.upstream
        out += "\nUpstream outcomes\n"
        out += "  retried requests \(u.retriedRequests), retries \(u.retries), rate-limited attempts \(u.rateLimitedAttempts), rate-limit waits \(ReportFormatting.ms(u.rateLimitWaitMs))\n"
        out += section("Outcomes", ["outcome", "requests"], u.outcomes.map { [$0.name, String($0.count)] }, level: 2)
        out += section("OpenPush statuses", ["status", "requests"], u.statuses.map { [$0.name, String($0.count)] }, level: 2)
        out += section("Scheduled sends", ["state", "sends"], u.scheduledSends.map { [$0.name, String($0.count)] }, level: 2)
        return out
    }

    static func section(_ title: String, _ header: [String], _ rows: [[String]], level: Int = 1) -> String {
        var out = level == 1 ? "\n\(title) (\(rows.count))\n" : "  \(title)\n"
        guard !rows.isEmpty else { return out + "  none\n" }
        out += table([header] + rows)
        return out
    }

    static func table(_ rows: [[String]]) -> String {
        var widths = [Int](repeating: 0, count: rows.map(\.count).max() ?? 0)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            "  " + row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
