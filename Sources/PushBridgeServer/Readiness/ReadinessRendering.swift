import PushBridgeCore

/// The readiness verdicts in every report format; `pushbridge readiness` prints the text or
/// JSON form alone, the report puts them first.
public enum ReadinessRendering {
    /// The verdicts alone in `format` (HTML: one page with the section; CSV: the header and the readiness rows).
    public static func render(_ r: Readiness, as format: ReportFormat) -> String {
        switch format {
        case .text: text(r)
        case .md: "# PushBridge readiness\n" + markdown(r)
        case .json: TerminalText.json(JSONWriter.pretty(json(r))) + "\n"
        case .csv: CSVCell.document([ReportCSV.columns] + csvRows(r))
        case .html: ReportHTML.page(title: "PushBridge readiness", body: "<header><h1>PushBridge readiness</h1></header>" + ReadinessHTML.section(r))
        }
    }

    /// `READY`, `NOT READY`, `NOT ENOUGH TRAFFIC`.
    static func label(_ verdict: ReadinessVerdict) -> String { verdict.rawValue.uppercased() }

    /// One line for the thresholds in force.
    static func thresholds(_ t: ReadinessThresholds) -> String {
        let pct = ReportFormatting.percent
        return "ready needs ≥ \(t.minRequests) requests and ≥ \(t.minShadowed) shadow comparisons per route; at most \(pct(t.maxWarningShare)) of requests per warning field, "
            + "\(pct(t.maxRejectionShare)) per rejection rule, \(pct(t.maxDisagreementShare)) shadow disagreements, \(pct(t.maxOpenPushErrorRate)) OpenPush errors, "
            + "\(pct(t.maxRateLimitedRate)) 429s"
    }

    /// Indented lines for a terminal: an app per block, its routes below with their reasons,
    /// then the requests refused before admission, apart. Stored values (app names, fields,
    /// messages, ids) go through ``TerminalText``.
    static func text(_ r: Readiness) -> String {
        let t = { (value: String) in TerminalText.escape(value) }
        var out = "Readiness — \(r.filter.summary.isEmpty ? "the whole audit" : t(r.filter.summary))\n  \(thresholds(r.thresholds))\n"
        if r.apps.isEmpty { out += "\n  no app has traffic in the window\n" }
        for app in r.apps {
            out += "\n  \(t(app.app)): \(label(app.verdict))\n"
            for reason in app.reasons { out += "    - \(t(reason))\n" }
            for route in app.routes {
                out += "    \(t(route.dialect)) \(t(route.route)): \(label(route.verdict)) — \(figures(route))\n"
                for reason in route.reasons { out += "      - \(t(reason))\n" }
            }
        }
        if r.refusedBeforeAdmission > 0 { out += "\n  \(r.refusedBeforeAdmissionLine)\n" }
        out += "\n" + r.notes.map { "  note: \($0)\n" }.joined()
        return out
    }

    /// Requests, comparisons, disagreements and OpenPush figures in one phrase.
    static func figures(_ route: RouteReadiness) -> String {
        var parts = [ReportFormatting.count(route.requests, "request"), "\(route.shadowed) shadowed"]
        if route.shadowed > 0 { parts.append(ReportFormatting.count(route.disagreements, "disagreement")) }
        if route.openPushCalls > 0 {
            parts.append("OpenPush errors \(ReportFormatting.percent(route.openPushErrorRate)) and 429s \(ReportFormatting.percent(route.rateLimitedRate)) of \(ReportFormatting.count(route.openPushCalls, "call"))")
        }
        return parts.joined(separator: ", ")
    }

    /// A Markdown section: a table of verdicts, then each reason as a list item, then the
    /// requests refused before admission. Stored values go through ``ReportMarkdown/cell(_:)``.
    static func markdown(_ r: Readiness) -> String {
        let cell = ReportMarkdown.cell
        var out = "\n## Readiness\n\n\(thresholds(r.thresholds)).\n\n"
        let refused = r.refusedBeforeAdmission > 0 ? "\n> \(r.refusedBeforeAdmissionLine)\n" : ""
        guard !r.apps.isEmpty else { return out + "No app has traffic in the window.\n" + refused + r.notes.map { "\n> \($0)\n" }.joined() }
        out += "| app | route | verdict | figures |\n|---|---|---|---|\n"
        for app in r.apps {
            if app.routes.isEmpty { out += "| \(cell(app.app)) | – | **\(app.verdict.rawValue)** | \(cell(app.reasons.joined(separator: "; "))) |\n" }
            for route in app.routes {
                out += "| \(cell(app.app)) | \(cell(route.dialect)) \(cell(route.route)) | **\(route.verdict.rawValue)** | \(figures(route)) |\n"
            }
        }
        for app in r.apps {
            for route in app.routes where !route.reasons.isEmpty {
                out += "\n**\(cell(app.app)) · \(cell(route.dialect)) \(cell(route.route))**\n\n" + route.reasons.map { "- \(cell($0))\n" }.joined()
            }
        }
        return out + refused + r.notes.map { "\n> \($0)\n" }.joined()
    }

    /// The JSON value: `{"filter", "thresholds", "all_ready", "apps": [{"app", "verdict", "reasons",
    /// "routes": [{"dialect", "route", "verdict", "reasons", "requests", "shadowed", "disagreements",
    /// "disagreement_share", "disagreement_cells", "openpush_calls", "openpush_errors",
    /// "openpush_error_rate", "rate_limited", "rate_limited_rate", "warnings", "rejections"}]}],
    /// "refused_before_admission", "notes"}`.
    static func json(_ r: Readiness) -> JSONValue {
        let t = r.thresholds
        let share = { (value: Double) in JSONValue.double(ReportFormatting.share(value)) }
        let int = { (value: Int) in JSONValue.int(Int64(value)) }
        let finding = { (f: ReadinessFinding) in
            JSONValue.object(["field": .string(f.field), "kind": .string(f.kind), "requests": int(f.requests), "share": share(f.share),
                              "example_request_id": .string(f.exampleRequestId), "example_message": .string(f.exampleMessage)])
        }
        let filter = r.filter
        return .object([
            "filter": .object(["since": filter.since.map { .int($0) } ?? .null, "until": filter.until.map { .int($0) } ?? .null,
                               "app": filter.app.map { .string($0) } ?? .null]),
            "thresholds": .object(["min_requests": int(t.minRequests), "min_shadowed": int(t.minShadowed), "max_warning_share": .double(t.maxWarningShare),
                                   "max_rejection_share": .double(t.maxRejectionShare), "max_disagreement_share": .double(t.maxDisagreementShare),
                                   "max_openpush_error_rate": .double(t.maxOpenPushErrorRate), "max_rate_limited_rate": .double(t.maxRateLimitedRate)]),
            "all_ready": .bool(r.allReady),
            "apps": .array(r.apps.map { app in
                .object(["app": .string(app.app), "verdict": .string(app.verdict.rawValue), "reasons": .array(app.reasons.map { .string($0) }),
                         "routes": .array(app.routes.map { route in
                             .object(["dialect": .string(route.dialect), "route": .string(route.route), "verdict": .string(route.verdict.rawValue),
                                      "reasons": .array(route.reasons.map { .string($0) }), "requests": int(route.requests),
                                      "shadowed": int(route.shadowed), "disagreements": int(route.disagreements), "disagreement_share": share(route.disagreementShare),
                                      "disagreement_cells": .array(route.disagreementCells.map {
                                          .object(["primary": .string($0.primary), "shadow": .string($0.shadow), "count": int($0.count),
                                                   "example_request_id": .string($0.exampleRequestId)])
                                      }),
                                      "openpush_calls": int(route.openPushCalls), "openpush_errors": int(route.openPushErrors),
                                      "openpush_error_rate": share(route.openPushErrorRate), "rate_limited": int(route.rateLimited),
                                      "rate_limited_rate": share(route.rateLimitedRate),
                                      "warnings": .array(route.warnings.map(finding)), "rejections": .array(route.rejections.map(finding))])
                         })])
            }),
            "refused_before_admission": int(r.refusedBeforeAdmission),
            "notes": .array(r.notes.map { .string($0) }),
        ])
    }

    /// CSV rows (``ReportCSV``'s columns): `readiness` rows with dialect, route (empty for an
    /// app without traffic), name (the app), kind (the verdict), count (requests) and detail
    /// (the reasons, `; `-separated); a `readiness_refused` row with count (the requests
    /// refused before admission, counted in no verdict) and detail (what that is); a
    /// `readiness_note` row per note.
    static func csvRows(_ r: Readiness) -> [[String]] {
        var rows: [[String]] = []
        func row(_ dialect: String, _ route: String, _ app: String, _ verdict: ReadinessVerdict, _ count: String, _ reasons: [String]) -> [String] {
            ["readiness", dialect, route, "", verdict.rawValue, app, count, "", "", "", "", "", reasons.joined(separator: "; ")]
        }
        for app in r.apps {
            if app.routes.isEmpty { rows.append(row("", "", app.app, app.verdict, "0", app.reasons)) }
            for route in app.routes { rows.append(row(route.dialect, route.route, app.app, route.verdict, String(route.requests), route.reasons)) }
        }
        rows.append(["readiness_refused", "", "", "", "", "", String(r.refusedBeforeAdmission), "", "", "", "", "", r.refusedBeforeAdmissionLine])
        for note in r.notes { rows.append(["readiness_note", "", "", "", "", "", "", "", "", "", "", "", note]) }
        return rows
    }
}
