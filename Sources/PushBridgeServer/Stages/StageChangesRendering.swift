import PushBridgeCore

/// The stage history in the formats of `pushbridge stages` (text, JSON, CSV) and the admin
/// page's section (HTML). What an operator wrote (app names, details, instance names) is
/// escaped for where it is shown.
public enum StageChangesRendering {
    /// The formats of `pushbridge stages`.
    public enum Format: String, Sendable {
        /// Two lines per change, for a terminal.
        case text
        /// `{"stage_changes": [...]}`.
        case json
        /// One row per change.
        case csv
    }

    /// `changes` (oldest first) in `format`.
    public static func render(_ changes: [StageChange], as format: Format) -> String {
        switch format {
        case .text: text(changes)
        case .json: TerminalText.json(JSONWriter.pretty(.object(["stage_changes": .array(changes.map(json))]))) + "\n"
        case .csv: CSVCell.document([columns] + changes.map(csvRow))
        }
    }

    /// One line per change (time, app, kind, stage and what it was, who, the configuration's
    /// fingerprint), its detail indented below; control characters shown escaped.
    static func text(_ changes: [StageChange]) -> String {
        guard !changes.isEmpty else { return "no stage change recorded\n" }
        let t = { (value: String) in TerminalText.escape(value) }
        return changes.map { c in
            "\(RFC3339.format(milliseconds: c.at))  \(t(c.app))  \(c.kind.rawValue): \(t(c.stageText))" + (c.previous.map { " (was \(t($0)))" } ?? "")
                + "  by \(t(c.instance ?? "unnamed instance"))  config \(t(c.fingerprint ?? "unknown"))\n    \(t(c.detail))\n"
        }.joined()
    }

    /// The CSV header.
    static let columns = ["changed_at", "app", "kind", "stage", "previous_stage", "detail", "instance", "config_fingerprint"]

    /// One change's CSV cells, in ``columns`` order (``CSVCell`` keeps a cell from starting a formula).
    static func csvRow(_ c: StageChange) -> [String] {
        [RFC3339.format(milliseconds: c.at), c.app, c.kind.rawValue, c.stageText, c.previous ?? "", c.detail, c.instance ?? "", c.fingerprint ?? ""]
    }

    /// One change as a JSON object (times in Unix ms, absent values `null`).
    static func json(_ c: StageChange) -> JSONValue {
        let optional = { (value: String?) in value.map(JSONValue.string) ?? .null }
        return .object(["changed_at": .int(c.at), "app": .string(c.app), "kind": .string(c.kind.rawValue), "stage": .string(c.stageText),
                        "previous_stage": optional(c.previous), "rolled_back": .bool(c.stage?.rolledBack ?? false), "legacy": c.stage.map { .bool($0.legacy) } ?? .null,
                        "percent": c.stage?.percent.map { .int(Int64($0)) } ?? .null, "detail": .string(c.detail),
                        "instance": optional(c.instance), "config_fingerprint": optional(c.fingerprint)])
    }

    /// The admin page's "Stage changes" section: the newest changes first, a rollback marked
    /// (it stays listed after its resume).
    static func htmlSection(_ changes: [StageChange]) -> String {
        let escape = ReportHTML.escape
        var out = "<section class=\"stages\"><h2>Stage changes</h2>"
        guard !changes.isEmpty else { return out + "<p class=\"none\">No stage change recorded yet.</p></section>" }
        out += "<div class=\"scroll\"><table><thead><tr><th>when</th><th>app</th><th>change</th><th>stage</th><th>was</th><th>detail</th><th>instance</th><th>config</th></tr></thead><tbody>"
        for c in changes.reversed() {
            let kind = c.kind == .rollback ? "<span class=\"badge not-ready\">rollback</span>" : escape(c.kind.rawValue)
            out += "<tr><td class=\"nw\">\(escape(RFC3339.format(milliseconds: c.at)))</td><td class=\"nw\">\(escape(c.app))</td><td class=\"nw\">\(kind)</td>"
                + "<td class=\"nw\">\(escape(c.stageText))</td><td class=\"nw\">\(escape(c.previous ?? "—"))</td><td>\(escape(c.detail))</td>"
                + "<td class=\"nw\">\(escape(c.instance ?? "—"))</td><td class=\"nw\">\(escape(c.fingerprint ?? "—"))</td></tr>"
        }
        return out + "</tbody></table></div></section>"
    }
}
