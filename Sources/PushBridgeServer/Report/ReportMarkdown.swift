/// The report as GitHub-flavoured Markdown: one table per section.
enum ReportMarkdown {
    static func render(_ r: Report) -> String {
        var out = "# PushBridge diff report\n\n\(r.totalRequests) requests"
        if !r.filter.summary.isEmpty { out += " · `\(r.filter.summary)`" }
        out += "\n"
        out += section("Requests by route", ["dialect", "route", "requests"], r.routes.map { [$0.dialect, $0.route, String($0.requests)] })
        for s in ReportFormatting.findingSections(r) {
            out += section(s.title, ["dialect", "route", "field", "kind", "requests", "share", "first seen", "last seen", "apps", "example", "message"],
                           s.groups.map { g in
                               [g.dialect, g.route, "`\(g.field)`", g.kind, String(g.requests), ReportFormatting.percent(g.share),
                                ReportFormatting.shortTime(g.firstSeen), ReportFormatting.shortTime(g.lastSeen), g.apps.joined(separator: ", "),
                                "`\(g.exampleRequestId)`", g.exampleMessage]
                           })
        }
        let sh = r.shadow
        out += "\n## Shadow comparison\n\n"
        if sh.comparisons == 0 {
            out += "No shadow traffic.\n"
        } else {
            out += "\(sh.comparisons) comparisons, \(sh.disagreements) disagreements. Error rate: primary \(ReportFormatting.percent(sh.primaryErrorRate)), shadow \(ReportFormatting.percent(sh.shadowErrorRate)).\n"
            out += section("Verdicts", ["verdict", "count"], sh.verdicts.map { [$0.name, String($0.count)] }, level: 3)
            out += section("Primary × shadow", ["primary", "shadow", "count"], sh.matrix.map { [$0.primary, $0.shadow, String($0.count)] }, level: 3)
            out += section("Latency", ["side", "p50", "p95", "p99"], [("primary", sh.primaryLatency), ("shadow", sh.shadowLatency)].map {
                [$0.0, ReportFormatting.ms($0.1.p50), ReportFormatting.ms($0.1.p95), ReportFormatting.ms($0.1.p99)]
            }, level: 3)
            out += section("Disagreements", ["request", "verdict", "primary", "shadow", "differences"], sh.disagreementExamples.map {
                ["`\($0.requestId)`", $0.verdict, $0.primaryStatus.map { String($0) } ?? "error", $0.shadowStatus.map { String($0) } ?? "error", $0.differences]
            }, level: 3)
        }
        let u = r.upstream
        out += "\n## Upstream outcomes\n\nRetried requests: \(u.retriedRequests) · retries: \(u.retries) · rate-limited attempts: \(u.rateLimitedAttempts) · rate-limit waits: \(ReportFormatting.ms(u.rateLimitWaitMs))\n"
        out += section("Outcomes", ["outcome", "requests"], u.outcomes.map { [$0.name, String($0.count)] }, level: 3)
        out += section("OpenPush statuses", ["status", "requests"], u.statuses.map { [$0.name, String($0.count)] }, level: 3)
        out += section("Scheduled sends", ["state", "sends"], u.scheduledSends.map { [$0.name, String($0.count)] }, level: 3)
        return out
    }

    static func section(_ title: String, _ header: [String], _ rows: [[String]], level: Int = 2) -> String {
        var out = "\n" + String(repeating: "#", count: level) + " \(title)\n\n"
        guard !rows.isEmpty else { return out + "None.\n" }
        let escape = { (cell: String) in cell.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ") }
        out += "| " + header.joined(separator: " | ") + " |\n|" + header.map { _ in "---" }.joined(separator: "|") + "|\n"
        for row in rows { out += "| " + row.map(escape).joined(separator: " | ") + " |\n" }
        return out
    }
}
