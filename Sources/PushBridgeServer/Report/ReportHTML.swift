/// The report as one self-contained HTML page: inline CSS, inline SVG charts, no scripts.
enum ReportHTML {
    static func render(_ r: Report) -> String {
        var body = "<header><h1>PushBridge diff report</h1><p class=\"sub\">\(r.totalRequests) requests"
        if !r.filter.summary.isEmpty { body += " · \(escape(r.filter.summary))" }
        body += "</p></header>"
        body += ReadinessHTML.section(r.readiness)
        body += "<section class=\"cards\">"
        body += card("Requests", String(r.totalRequests)) + card("Dropped fields", String(r.dropped.count))
        body += card("Changes", String(r.changes.count)) + card("Rejection rules", String(r.rejections.count))
        body += card("Shadow disagreements", r.shadow.comparisons == 0 ? "–" : String(r.shadow.disagreements))
        body += "</section>"
        body += "<section><h2>Dropped fields over time</h2>\(ReportSVG.overTime(r.droppedOverTime))</section>"
        body += "<section><h2>Share of requests affected per field</h2>\(ReportSVG.shares(r.dropped))</section>"
        for s in ReportFormatting.findingSections(r) {
            body += "<section><h2>\(s.title) <span class=\"count\">\(s.groups.count)</span></h2>" + groupTable(s.groups) + "</section>"
        }
        body += shadow(r.shadow) + upstream(r.upstream)
        body += "<section><h2>Requests by route</h2>" + table(["dialect", "route", "requests"], r.routes.map { [$0.dialect, $0.route, String($0.requests)] }, numeric: [2]) + "</section>"
        body += "<section><h2>Unhandled routes <span class=\"count\">\(r.unhandled.count)</span></h2>"
            + table(["dialect", "route", "requests"], r.unhandled.map { [$0.dialect, $0.route, String($0.requests)] }, numeric: [2]) + "</section>"
        return page(title: "PushBridge diff report", body: body)
    }

    /// A whole page around `body`: the inline style (and `extraStyle` after it), no scripts.
    static func page(title: String, body: String, extraStyle: String = "") -> String {
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            + "<title>\(escape(title))</title><style>\(style)\(ReadinessHTML.style)\(extraStyle)</style></head><body><main>\(body)</main></body></html>\n"
    }

    static func groupTable(_ groups: [FindingGroup]) -> String {
        table(["dialect", "route", "field and example message", "kind", "requests", "share", "first seen", "last seen", "apps", "example request"], groups.map { g in
            [g.dialect, g.route, "<code>\(escape(g.field))</code><div class=\"msg\">\(escape(g.exampleMessage))</div>", g.kind, String(g.requests),
             ReportFormatting.percent(g.share), time(g.firstSeen), time(g.lastSeen),
             ReportFormatting.apps(g.apps), "<code>\(escape(g.exampleRequestId))</code>"]
        }, numeric: [4, 5], raw: [2, 6, 7, 9], nowrap: [0, 1, 3])
    }

    /// `2026-06-10 12:00` that breaks, when it must, between the date and the time only.
    static func time(_ milliseconds: Int64) -> String {
        ReportFormatting.shortTime(milliseconds).split(separator: " ").map { "<span class=\"nw\">\(escape(String($0)))</span>" }.joined(separator: " ")
    }

    static func shadow(_ s: ShadowSummary) -> String {
        var out = "<section><h2>Shadow comparison</h2>\(ReportSVG.verdicts(s))"
        guard s.comparisons > 0 else { return out + "</section>" }
        out += "<p>\(s.comparisons) comparisons · \(s.disagreements) disagreements · \(s.expectedDisagreements) expected (population gaps: phones not on OpenPush yet) · errors: primary \(ReportFormatting.percent(s.primaryErrorRate)), shadow \(ReportFormatting.percent(s.shadowErrorRate))</p>"
        out += "<div class=\"grid2\"><div><h3>Primary × shadow</h3>" + table(["primary", "shadow", "count"], s.matrix.map { [$0.primary, $0.shadow, String($0.count)] }, numeric: [2]) + "</div>"
        out += "<div><h3>Latency</h3>" + table(["side", "p50", "p95", "p99"], [("primary", s.primaryLatency), ("shadow", s.shadowLatency)].map {
            [$0.0, ReportFormatting.ms($0.1.p50), ReportFormatting.ms($0.1.p95), ReportFormatting.ms($0.1.p99)]
        }, numeric: [1, 2, 3]) + "</div></div>"
        out += "<h3>Disagreements</h3>" + table(["request", "verdict", "primary", "shadow", "differences"], s.disagreementExamples.map {
            ["<code>\(escape($0.requestId))</code>", $0.verdict, $0.primaryStatus.map { String($0) } ?? "error", $0.shadowStatus.map { String($0) } ?? "error", $0.differences]
        }, raw: [0])
        return out + "</section>"
    }

    static func upstream(_ u: UpstreamSummary) -> String {
        var out = "<section><h2>Upstream outcomes</h2><section class=\"cards\">"
        out += card("Retried requests", String(u.retriedRequests)) + card("Retries", String(u.retries))
        out += card("Rate-limited attempts", String(u.rateLimitedAttempts)) + card("Rate-limit waits", ReportFormatting.ms(u.rateLimitWaitMs)) + "</section>"
        out += "<div class=\"grid3\"><div><h3>Outcomes</h3>" + table(["outcome", "requests"], u.outcomes.map { [$0.name, String($0.count)] }, numeric: [1]) + "</div>"
        out += "<div><h3>OpenPush statuses</h3>" + table(["status", "requests"], u.statuses.map { [$0.name, String($0.count)] }, numeric: [1]) + "</div>"
        out += "<div><h3>Scheduled sends</h3>" + table(["state", "sends"], u.scheduledSends.map { [$0.name, String($0.count)] }, numeric: [1]) + "</div></div>"
        return out + "</section>"
    }

    static func card(_ label: String, _ value: String) -> String {
        "<div class=\"card\"><div class=\"value\">\(escape(value))</div><div class=\"label\">\(escape(label))</div></div>"
    }

    /// A table; cells are escaped unless their column is in `raw` (already HTML).
    static func table(_ header: [String], _ rows: [[String]], numeric: Set<Int> = [], raw: Set<Int> = [], nowrap: Set<Int> = []) -> String {
        guard !rows.isEmpty else { return "<p class=\"none\">None.</p>" }
        var out = "<div class=\"scroll\"><table><thead><tr>"
        for (i, h) in header.enumerated() { out += "<th\(numeric.contains(i) ? " class=\"num\"" : "")>\(escape(h))</th>" }
        out += "</tr></thead><tbody>"
        for row in rows {
            out += "<tr>" + row.enumerated().map { i, cell in
                "<td\(numeric.contains(i) ? " class=\"num\"" : nowrap.contains(i) ? " class=\"nw\"" : "")>\(raw.contains(i) ? cell : escape(cell))</td>"
            }.joined() + "</tr>"
        }
        return out + "</tbody></table></div>"
    }

    /// Escapes `& < > " '`, and writes control characters visibly (``TerminalText``: a
    /// browser would hide them, a terminal showing the page's source would act on them).
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for c in TerminalText.escape(text) {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static let style = """
        :root{--fg:#0f172a;--muted:#64748b;--line:#e2e8f0;--bg:#f8fafc;--card:#fff;--accent:#2563eb}
        *{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
        main{max-width:1180px;margin:0 auto;padding:32px 24px 64px}header h1{margin:0;font-size:26px;letter-spacing:-.01em}.sub{color:var(--muted);margin:4px 0 24px}
        section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px 20px;margin:0 0 18px}
        section.cards{display:flex;flex-wrap:wrap;gap:12px;background:none;border:0;padding:0}section section.cards{margin:6px 0 14px}
        .card{flex:1 1 150px;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 16px}
        .card .value{font-size:24px;font-weight:650;font-variant-numeric:tabular-nums}.card .label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
        h2{font-size:17px;margin:0 0 12px}h3{font-size:14px;margin:14px 0 8px;color:#334155}.count{background:#eff6ff;color:var(--accent);border-radius:999px;padding:1px 9px;font-size:12px;vertical-align:2px}
        .scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:13px}th{text-align:left;color:var(--muted);font-weight:600;border-bottom:2px solid var(--line);padding:6px 10px;white-space:nowrap}
        td{border-bottom:1px solid var(--line);padding:6px 10px;vertical-align:top}tbody tr:nth-child(even){background:#fbfdff}.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
        code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f5f9;padding:1px 5px;border-radius:4px}
        svg{width:100%;height:auto;display:block}.grid{stroke:var(--line)}.axis{fill:var(--muted);font-size:11px}.label{fill:var(--fg);font-size:12px}.value{fill:var(--muted);font-size:12px}
        rect.requests,.swatch.requests{fill:#cbd5e1;background:#cbd5e1}rect.dropped,.swatch.dropped{fill:#dc2626;background:#dc2626}rect.track{fill:#f1f5f9}
        .legend{color:var(--muted);font-size:12px;margin:8px 0 0}.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 5px 0 10px;vertical-align:-1px}
        .nw{white-space:nowrap}.msg{color:var(--muted);font-size:12px;margin-top:3px;max-width:420px}td code{overflow-wrap:anywhere}
        .empty,.none{color:var(--muted);font-style:italic}.empty{padding:18px;text-align:center;background:#f8fafc;border-radius:8px}
        .grid2{display:grid;grid-template-columns:1fr 1fr;gap:18px}.grid3{display:grid;grid-template-columns:repeat(3,1fr);gap:18px}
        @media (max-width:760px){.grid2,.grid3{grid-template-columns:1fr}}
        """
}
