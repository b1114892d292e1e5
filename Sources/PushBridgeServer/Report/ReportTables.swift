/// The report's tables as data — title, header and rows — shared by the text and Markdown
/// renderers, which differ only in how they lay a table out and in their summary sentences.
struct ReportTable {
    /// The table's heading.
    var title: String
    /// Column names.
    var header: [String]
    /// Cells, one array per row.
    var rows: [[String]]
}

enum ReportTables {
    /// How identifiers and app lists appear in a renderer's cells.
    struct CellStyle {
        /// Wraps a field path or request id (Markdown: backticks).
        var code: (String) -> String
        /// Joins an app list.
        var apps: ([String]) -> String
        /// Whether finding tables carry the example message column.
        var withMessage: Bool
    }

    static func routes(_ r: Report) -> ReportTable {
        ReportTable(title: "Requests by route", header: ["dialect", "route", "requests"], rows: r.routes.map { [$0.dialect, $0.route, String($0.requests)] })
    }

    /// Requests on routes PushBridge does not translate: calls a migration to OpenPush leaves behind.
    static func unhandled(_ r: Report) -> ReportTable {
        ReportTable(title: "Unhandled routes", header: ["dialect", "route", "requests"], rows: r.unhandled.map { [$0.dialect, $0.route, String($0.requests)] })
    }

    /// Dropped fields, changes, rejections and caveats.
    static func findings(_ r: Report, style: CellStyle) -> [ReportTable] {
        ReportFormatting.findingSections(r).map { s in
            var header = ["dialect", "route", "field", "kind", "requests", "share", "first seen", "last seen", "apps", "example"]
            if style.withMessage { header.append("message") }
            return ReportTable(title: s.title, header: header, rows: s.groups.map { g in
                var row = [g.dialect, g.route, style.code(g.field), g.kind, String(g.requests), ReportFormatting.percent(g.share),
                           ReportFormatting.shortTime(g.firstSeen), ReportFormatting.shortTime(g.lastSeen), style.apps(g.apps),
                           style.code(g.exampleRequestId)]
                if style.withMessage { row.append(g.exampleMessage) }
                return row
            })
        }
    }

    /// Verdicts, the primary × shadow matrix, latency per side, disagreement examples.
    static func shadow(_ sh: ShadowSummary, style: CellStyle) -> [ReportTable] {
        [
            ReportTable(title: "Verdicts", header: ["verdict", "count"], rows: sh.verdicts.map { [$0.name, String($0.count)] }),
            ReportTable(title: "Primary × shadow", header: ["primary", "shadow", "count"], rows: sh.matrix.map { [$0.primary, $0.shadow, String($0.count)] }),
            ReportTable(title: "Latency", header: ["side", "p50", "p95", "p99"], rows: [("primary", sh.primaryLatency), ("shadow", sh.shadowLatency)].map {
                [$0.0, ReportFormatting.ms($0.1.p50), ReportFormatting.ms($0.1.p95), ReportFormatting.ms($0.1.p99)]
            }),
            ReportTable(title: "Disagreements", header: ["request", "verdict", "primary", "shadow", "differences"], rows: sh.disagreementExamples.map {
                [style.code($0.requestId), $0.verdict, $0.primaryStatus.map { String($0) } ?? "error", $0.shadowStatus.map { String($0) } ?? "error", $0.differences]
            }),
        ]
    }

    /// Outcomes, OpenPush statuses, scheduled sends.
    static func upstream(_ u: UpstreamSummary) -> [ReportTable] {
        [
            ReportTable(title: "Outcomes", header: ["outcome", "requests"], rows: u.outcomes.map { [$0.name, String($0.count)] }),
            ReportTable(title: "OpenPush statuses", header: ["status", "requests"], rows: u.statuses.map { [$0.name, String($0.count)] }),
            ReportTable(title: "Scheduled sends", header: ["state", "sends"], rows: u.scheduledSends.map { [$0.name, String($0.count)] }),
        ]
    }
}
