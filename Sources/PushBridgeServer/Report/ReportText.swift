/// The report for a terminal: a heading per section and aligned columns. Stored values are
/// printed through ``TerminalText`` (control characters visible).
enum ReportText {
    /// The whole report.
    static func render(_ r: Report) -> String {
        var out = "PushBridge diff report — \(r.totalRequests) requests"
        if !r.filter.summary.isEmpty { out += " (\(r.filter.summary))" }
        out += "\n\n" + ReadinessRendering.text(r.readiness)
        let style = ReportTables.CellStyle(code: { $0 }, apps: ReportFormatting.apps, withMessage: false)
        out += section(ReportTables.routes(r))
        out += section(ReportTables.unhandled(r))
        for t in ReportTables.findings(r, style: style) { out += section(t) }
        out += "\nShadow comparison\n"
        let sh = r.shadow
        if sh.comparisons == 0 {
            out += "  no shadow traffic\n"
        } else {
            out += "  \(sh.comparisons) comparisons, \(sh.disagreements) disagreements (and \(sh.expectedDisagreements) expected: population gaps, phones not on OpenPush yet); errors: primary \(ReportFormatting.percent(sh.primaryErrorRate)), shadow \(ReportFormatting.percent(sh.shadowErrorRate))\n"
            for t in ReportTables.shadow(sh, style: style) { out += section(t, level: 2) }
        }
        let u = r.upstream
        out += "\nUpstream outcomes\n"
        out += "  retried requests \(u.retriedRequests), retries \(u.retries), rate-limited attempts \(u.rateLimitedAttempts), rate-limit waits \(ReportFormatting.ms(u.rateLimitWaitMs))\n"
        for t in ReportTables.upstream(u) { out += section(t, level: 2) }
        return out
    }

    /// One table under its title, or `none`.
    static func section(_ t: ReportTable, level: Int = 1) -> String {
        var out = level == 1 ? "\n\(t.title) (\(t.rows.count))\n" : "  \(t.title)\n"
        guard !t.rows.isEmpty else { return out + "  none\n" }
        out += table([t.header] + t.rows)
        return out
    }

    /// Aligned columns; every cell is stored data, printed through ``TerminalText``.
    static func table(_ cells: [[String]]) -> String {
        let rows = cells.map { $0.map { TerminalText.escape($0) } }
        var widths = [Int](repeating: 0, count: rows.map(\.count).max() ?? 0)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            "  " + row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
