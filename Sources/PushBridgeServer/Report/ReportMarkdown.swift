/// The report as GitHub-flavoured Markdown: one table per section; stored values go through
/// ``cell(_:)``.
enum ReportMarkdown {
    /// The whole report.
    static func render(_ r: Report) -> String {
        var out = "# PushBridge diff report\n\n\(r.totalRequests) requests"
        if !r.filter.summary.isEmpty { out += " · `\(r.filter.summary)`" }
        out += "\n" + ReadinessRendering.markdown(r.readiness)
        let style = ReportTables.CellStyle(code: { "`\($0)`" }, apps: { $0.joined(separator: ", ") }, withMessage: true)
        out += section(ReportTables.routes(r))
        out += section(ReportTables.unhandled(r))
        for t in ReportTables.findings(r, style: style) { out += section(t) }
        let sh = r.shadow
        out += "\n## Shadow comparison\n\n"
        if sh.comparisons == 0 {
            out += "No shadow traffic.\n"
        } else {
            out += "\(sh.comparisons) comparisons, \(sh.disagreements) disagreements (and \(sh.expectedDisagreements) expected: population gaps, phones not on OpenPush yet). Error rate: primary \(ReportFormatting.percent(sh.primaryErrorRate)), shadow \(ReportFormatting.percent(sh.shadowErrorRate)).\n"
            for t in ReportTables.shadow(sh, style: style) { out += section(t, level: 3) }
        }
        let u = r.upstream
        out += "\n## Upstream outcomes\n\nRetried requests: \(u.retriedRequests) · retries: \(u.retries) · rate-limited attempts: \(u.rateLimitedAttempts) · rate-limit waits: \(ReportFormatting.ms(u.rateLimitWaitMs))\n"
        for t in ReportTables.upstream(u) { out += section(t, level: 3) }
        return out
    }

    /// One table under its heading, or `None.`.
    static func section(_ t: ReportTable, level: Int = 2) -> String {
        let (header, rows) = (t.header, t.rows)
        var out = "\n" + String(repeating: "#", count: level) + " \(t.title)\n\n"
        guard !rows.isEmpty else { return out + "None.\n" }
        out += "| " + header.joined(separator: " | ") + " |\n|" + header.map { _ in "---" }.joined(separator: "|") + "|\n"
        for row in rows { out += "| " + row.map(cell).joined(separator: " | ") + " |\n" }
        return out
    }

    /// A stored value in a table cell: control characters visible (``TerminalText``, line
    /// breaks included, so a value never starts a row of its own) and `|` escaped.
    static func cell(_ value: String) -> String { TerminalText.escape(value).replacingOccurrences(of: "|", with: "\\|") }
}
