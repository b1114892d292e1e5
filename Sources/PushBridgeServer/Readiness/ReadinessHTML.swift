/// The readiness section that opens the HTML report: a badge per app, then a table of its
/// routes with their figures and reasons.
enum ReadinessHTML {
    static func section(_ r: Readiness) -> String {
        let escape = ReportHTML.escape
        var out = "<section class=\"readiness\"><h2>Cut-over readiness</h2><p class=\"legend\">\(escape(ReadinessRendering.windows(r) + ": " + ReadinessRendering.thresholds(r.thresholds)))</p>"
        guard !r.apps.isEmpty else { return out + "<p class=\"none\">No app has traffic in the window.</p>" + refused(r) + notes(r) + nextSteps(r) + "</section>" }
        out += "<div class=\"verdicts\">"
        for app in r.apps {
            out += "<div class=\"verdict \(css(app.verdict))\"><div class=\"value\">\(escape(app.app))</div><div class=\"label\">\(escape(app.verdict.rawValue))</div>"
                + "<div class=\"label legacy\">\(escape(app.legacy.verdict.rawValue))</div></div>"
        }
        out += "</div><div class=\"scroll\"><table><thead><tr><th>app</th><th>route</th><th>verdict</th><th class=\"num\">requests</th>"
            + "<th class=\"num\">shadowed</th><th class=\"num\">disagreements</th><th class=\"num\">OpenPush errors</th><th class=\"num\">429s</th><th class=\"num\">reach</th></tr></thead><tbody>"
        for app in r.apps {
            if app.routes.isEmpty {
                out += "<tr><td class=\"nw\">\(escape(app.app))</td><td>–</td><td class=\"nw\">\(badge(app.verdict))</td><td class=\"num\">0</td><td class=\"num\">0</td>"
                    + "<td class=\"num\">–</td><td class=\"num\">–</td><td class=\"num\">–</td><td class=\"num\">–</td></tr>" + reasonRow(app.reasons)
            } else if !app.reasons.isEmpty {
                out += "<tr><td class=\"nw\">\(escape(app.app))</td><td>every route</td><td class=\"nw\">\(badge(app.verdict))</td><td colspan=\"6\"></td></tr>" + reasonRow(app.reasons)
            }
            for route in app.routes {
                let calls = route.openPushCalls > 0
                out += "<tr><td class=\"nw\">\(escape(app.app))</td><td class=\"nw\">\(escape(route.dialect)) \(escape(route.route))</td><td class=\"nw\">\(badge(route.verdict))</td>"
                    + "<td class=\"num\">\(route.requests)</td><td class=\"num\">\(route.shadowed)</td><td class=\"num\">\(route.shadowed > 0 ? String(route.disagreements) : "–")</td>"
                    + "<td class=\"num\">\(calls ? ReportFormatting.percent(route.openPushErrorRate) : "–")</td><td class=\"num\">\(calls ? ReportFormatting.percent(route.rateLimitedRate) : "–")</td>"
                    + "<td class=\"num\">\(route.reach.map(ReportFormatting.percent) ?? "–")</td>"
                    + "</tr>" + reasonRow(route.reasons + route.acceptedLosses.map { ReadinessRendering.accepted($0, of: route.requests) })
            }
            out += "<tr class=\"reasons\"><td colspan=\"9\" class=\"legend\">\(escape(app.app)) judged \(escape(app.window.description))</td></tr>"
            out += "<tr><td class=\"nw\">\(escape(app.app))</td><td>legacy provider</td><td class=\"nw\" colspan=\"7\">\(legacyBadge(app.legacy.verdict))</td></tr>" + reasonRow(app.legacy.reasons)
        }
        return out + "</tbody></table></div>" + refused(r) + notes(r) + nextSteps(r) + "</section>"
    }

    /// The next steps, numbered, at the end of the section (nothing when there are none).
    static func nextSteps(_ r: Readiness) -> String {
        let steps = r.nextSteps
        guard !steps.isEmpty else { return "" }
        return "<h3>Next steps</h3><ol class=\"steps\">" + steps.map { "<li>\(ReportHTML.escape($0))</li>" }.joined() + "</ol>"
    }

    /// The second verdict's badge.
    static func legacyBadge(_ verdict: LegacySwitchOff.Verdict) -> String {
        "<span class=\"badge \(verdict == .canBeSwitchedOff ? "ready" : "short")\">\(ReportHTML.escape(verdict.rawValue))</span>"
    }

    /// The requests refused before admission, apart from the verdicts (nothing when there are none).
    private static func refused(_ r: Readiness) -> String {
        r.refusedBeforeAdmission > 0 ? "<p class=\"legend\">\(ReportHTML.escape(r.refusedBeforeAdmissionLine))</p>" : ""
    }

    static func css(_ verdict: ReadinessVerdict) -> String {
        switch verdict {
        case .ready: "ready"
        case .notReady: "not-ready"
        case .notEnoughTraffic: "short"
        }
    }

    static func badge(_ verdict: ReadinessVerdict) -> String { "<span class=\"badge \(css(verdict))\">\(ReportHTML.escape(verdict.rawValue))</span>" }

    /// The reasons under their route's row, across the whole table (they are sentences).
    static func reasonRow(_ reasons: [String]) -> String {
        guard !reasons.isEmpty else { return "" }
        return "<tr class=\"reasons\"><td colspan=\"9\"><ul class=\"reasons\">" + reasons.map { "<li>\(ReportHTML.escape($0))</li>" }.joined() + "</ul></td></tr>"
    }

    private static func notes(_ r: Readiness) -> String { r.notes.map { "<p class=\"legend\">\(ReportHTML.escape($0))</p>" }.joined() }

    static let style = """
        .verdicts{display:flex;flex-wrap:wrap;gap:10px;margin:0 0 14px}.verdict{flex:1 1 180px;border-radius:10px;padding:12px 14px;border:1px solid var(--line)}
        .verdict .value{font-size:16px;font-weight:650;overflow-wrap:anywhere}.verdict .label{font-size:12px;text-transform:uppercase;letter-spacing:.04em;font-weight:600}
        .verdict.ready{background:#f0fdf4;border-color:#86efac;color:#166534}.verdict.not-ready{background:#fef2f2;border-color:#fca5a5;color:#991b1b}
        .verdict.short{background:#fffbeb;border-color:#fcd34d;color:#92400e}
        .badge{border-radius:999px;padding:1px 9px;font-size:12px;font-weight:600}.badge.ready{background:#dcfce7;color:#166534}
        .badge.not-ready{background:#fee2e2;color:#991b1b}.badge.short{background:#fef3c7;color:#92400e}
        ul.reasons{margin:0;padding-left:18px;font-size:12px;color:#334155;overflow-wrap:anywhere}tr.reasons td{border-top:0;padding-top:0}
        .verdict .label.legacy{font-weight:500;opacity:.8;margin-top:2px}ol.steps{margin:4px 0 0;padding-left:22px;font-size:13px;overflow-wrap:anywhere}ol.steps li{margin:3px 0}
        """
}
