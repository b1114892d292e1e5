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
            + "\(pct(t.maxRateLimitedRate)) 429s, \(t.openPushRequestsPerMinute) OpenPush sends in the busiest minute of an app's OpenPush app; legacy can be switched off at reach ≥ \(pct(t.minReach)) "
            + "and no activity in flight on the legacy side"
    }

    /// `LEGACY CAN BE SWITCHED OFF`, `KEEP LEGACY`.
    static func label(_ verdict: LegacySwitchOff.Verdict) -> String { verdict.rawValue.uppercased() }

    /// An accepted loss in one phrase.
    static func accepted(_ f: ReadinessFinding, of requests: Int) -> String {
        "accepted loss: \(f.field) \(f.kind) on \(f.requests) of \(ReportFormatting.count(requests, "request")) (\(ReportFormatting.percent(f.share)))"
    }

    /// Indented lines for a terminal: an app per block, its routes below with their reasons,
    /// then the requests refused before admission, apart. Stored values (app names, fields,
    /// messages, ids) go through ``TerminalText``.
    static func text(_ r: Readiness) -> String {
        let t = { (value: String) in TerminalText.escape(value) }
        var out = "Readiness — \(t(windows(r)))\n  \(thresholds(r.thresholds))\n"
        if r.apps.isEmpty { out += "\n  no app has traffic in the window\n" }
        for app in r.apps {
            out += "\n  \(t(app.app)): \(label(app.verdict))\n"
            for reason in app.reasons { out += "    - \(t(reason))\n" }
            for route in app.routes {
                out += "    \(t(route.dialect)) \(t(route.route)): \(label(route.verdict)) — \(figures(route))\n"
                for reason in route.reasons { out += "      - \(t(reason))\n" }
                for loss in route.acceptedLosses { out += "      \(t(accepted(loss, of: route.requests)))\n" }
            }
            out += "    legacy provider: \(label(app.legacy.verdict))\n"
            for reason in app.legacy.reasons { out += "      - \(t(reason))\n" }
            out += "    judged: \(t(app.window.description))\n"
        }
        if r.refusedBeforeAdmission > 0 { out += "\n  \(r.refusedBeforeAdmissionLine)\n" }
        let steps = r.nextSteps
        if !steps.isEmpty { out += "\n  next steps:\n" + steps.enumerated().map { "    \($0.offset + 1). \(t($0.element))\n" }.joined() }
        out += "\n" + r.notes.map { "  note: \($0)\n" }.joined()
        return out
    }

    /// Requests, comparisons, disagreements and OpenPush figures in one phrase.
    static func figures(_ route: RouteReadiness) -> String {
        var parts = [ReportFormatting.count(route.requests, "request"), "\(route.shadowed) shadowed"]
        if route.shadowed > 0 { parts.append(ReportFormatting.count(route.disagreements, "disagreement")) }
        if route.expectedDisagreements > 0 { parts.append("\(route.expectedDisagreements) expected (population gaps)") }
        if route.openPushCalls > 0 {
            parts.append("OpenPush errors \(ReportFormatting.percent(route.openPushErrorRate)) and 429s \(ReportFormatting.percent(route.rateLimitedRate)) of \(ReportFormatting.count(route.openPushCalls, "call"))")
        }
        if let reach = route.reach { parts.append("reach \(ReportFormatting.percent(reach)) (\(ReportFormatting.count(route.openPushGaps, "population gap")))") }
        if route.legacyGaps > 0 { parts.append("\(route.legacyGaps) not on legacy") }
        return parts.joined(separator: ", ")
    }

    /// A Markdown section: a table of verdicts, then each reason as a list item, then the
    /// requests refused before admission. Stored values go through ``ReportMarkdown/cell(_:)``.
    static func markdown(_ r: Readiness) -> String {
        let cell = ReportMarkdown.cell
        var out = "\n## Readiness\n\n\(cell(windows(r))): \(thresholds(r.thresholds)).\n\n"
        let refused = r.refusedBeforeAdmission > 0 ? "\n> \(r.refusedBeforeAdmissionLine)\n" : ""
        guard !r.apps.isEmpty else { return out + "No app has traffic in the window.\n" + refused + r.notes.map { "\n> \($0)\n" }.joined() }
        out += "| app | route | verdict | legacy | figures |\n|---|---|---|---|---|\n"
        for app in r.apps {
            if app.routes.isEmpty { out += "| \(cell(app.app)) | – | **\(app.verdict.rawValue)** | \(app.legacy.verdict.rawValue) | \(cell(app.reasons.joined(separator: "; "))) |\n" }
            for route in app.routes {
                out += "| \(cell(app.app)) | \(cell(route.dialect)) \(cell(route.route)) | **\(route.verdict.rawValue)** | \(app.legacy.verdict.rawValue) | \(figures(route)) |\n"
            }
        }
        for app in r.apps {
            out += "\n**\(cell(app.app))** judged \(cell(app.window.description))\n"
            if !app.routes.isEmpty, !app.reasons.isEmpty { out += "\n**\(cell(app.app))**\n\n" + app.reasons.map { "- \(cell($0))\n" }.joined() }
            for route in app.routes where !route.reasons.isEmpty || !route.acceptedLosses.isEmpty {
                out += "\n**\(cell(app.app)) · \(cell(route.dialect)) \(cell(route.route))**\n\n" + route.reasons.map { "- \(cell($0))\n" }.joined()
                    + route.acceptedLosses.map { "- \(cell(accepted($0, of: route.requests)))\n" }.joined()
            }
            if !app.legacy.reasons.isEmpty {
                out += "\n**\(cell(app.app)) · legacy provider: \(app.legacy.verdict.rawValue)**\n\n" + app.legacy.reasons.map { "- \(cell($0))\n" }.joined()
            }
        }
        let steps = r.nextSteps
        let next = steps.isEmpty ? "" : "\n### Next steps\n\n" + steps.enumerated().map { "\($0.offset + 1). \(cell($0.element))\n" }.joined()
        return out + refused + r.notes.map { "\n> \($0)\n" }.joined() + next
    }

    /// The JSON value: `{"filter", "thresholds", "all_ready", "apps": [{"app", "verdict", "reasons",
    /// "routes": [{"dialect", "route", "verdict", "reasons", "requests", "shadowed", "disagreements",
    /// "disagreement_share", "disagreement_cells", "openpush_calls", "openpush_errors",
    /// "openpush_error_rate", "rate_limited", "rate_limited_rate", "warnings", "rejections",
    /// "expected_disagreements", "openpush_gaps", "legacy_gaps", "reach", "accepted_losses"}],
    /// "legacy": {"verdict", "reasons"}, "busiest_minute", "in_flight", "next_steps"}],
    /// "refused_before_admission", "notes", "next_steps"}`.
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
                                   "max_openpush_error_rate": .double(t.maxOpenPushErrorRate), "max_rate_limited_rate": .double(t.maxRateLimitedRate),
                                   "min_reach": .double(t.minReach), "openpush_requests_per_minute": int(t.openPushRequestsPerMinute),
                                   "accepted_losses": .object(JSONObject(members: t.acceptedLosses.keys.sorted().map { JSONMember($0, .array((t.acceptedLosses[$0] ?? []).map { .string($0) })) }))]),
            "all_ready": .bool(r.allReady),
            "apps": .array(r.apps.map { app in
                .object(["app": .string(app.app), "verdict": .string(app.verdict.rawValue), "reasons": .array(app.reasons.map { .string($0) }),
                         "window": window(app.window), "stage": app.stage?.latest.stage.map { .string($0.summary) } ?? .null,
                         "legacy": .object(["verdict": .string(app.legacy.verdict.rawValue), "reasons": .array(app.legacy.reasons.map { .string($0) })]),
                         "busiest_minute": app.busiestMinute.map { minute in
                             .object(["start": .int(minute.start), "requests": int(minute.requests),
                                      "openpush_app": minute.openPushApp.map(JSONValue.string) ?? .null, "apps": .array(minute.apps.map(JSONValue.string))])
                         } ?? .null,
                         "in_flight": app.inFlight.map { counts in
                             .array(counts.map { .object(["holder": .string($0.holder.rawValue), "count": int($0.count), "last_reachable_until": .int($0.lastReachableUntil)]) })
                         } ?? .null,
                         "next_steps": .array((app.nextSteps + app.routes.flatMap(\.nextSteps) + app.legacy.nextSteps).map { .string($0) }),
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
                                      "warnings": .array(route.warnings.map(finding)), "rejections": .array(route.rejections.map(finding)),
                                      "expected_disagreements": int(route.expectedDisagreements), "openpush_gaps": int(route.openPushGaps),
                                      "legacy_gaps": int(route.legacyGaps), "reach": route.reach.map(share) ?? .null,
                                      "accepted_losses": .array(route.acceptedLosses.map(finding))])
                         })])
            }),
            "refused_before_admission": int(r.refusedBeforeAdmission),
            "notes": .array(r.notes.map { .string($0) }),
            "next_steps": .array(r.nextSteps.map { .string($0) }),
        ])
    }

    /// CSV rows (``ReportCSV``'s columns): `readiness` rows with dialect, route (empty for an
    /// app without traffic), name (the app), kind (the verdict), count (requests) and detail
    /// (the reasons, `; `-separated); a `readiness_refused` row with count (the requests
    /// refused before admission, counted in no verdict) and detail (what that is); a
    /// `readiness_legacy` row per app (kind: the second verdict, count: activities in flight
    /// on the legacy side, empty when not known, detail: its reasons); a `readiness_reach` row
    /// per route OpenPush was called on (count: population gaps, share: the reach); a
    /// `readiness_accepted` row per accepted loss; a `readiness_note` row per note and a
    /// `readiness_next_step` row per next step.
    static func csvRows(_ r: Readiness) -> [[String]] {
        var rows: [[String]] = []
        func row(_ dialect: String, _ route: String, _ app: String, _ verdict: ReadinessVerdict, _ count: String, _ reasons: [String]) -> [String] {
            ["readiness", dialect, route, "", verdict.rawValue, app, count, "", "", "", "", "", reasons.joined(separator: "; ")]
        }
        for app in r.apps {
            if app.routes.isEmpty { rows.append(row("", "", app.app, app.verdict, "0", app.reasons)) }
            for route in app.routes { rows.append(row(route.dialect, route.route, app.app, route.verdict, String(route.requests), route.reasons)) }
        }
        for app in r.apps {
            rows.append(["readiness_window", "", "", "", app.window.basis.rawValue, app.app, "", "", "", "", "", "", app.window.description])
            rows.append(["readiness_legacy", "", "", "", app.legacy.verdict.rawValue, app.app, app.legacyInFlight.map(String.init) ?? "", "", "", "", "", "",
                         app.legacy.reasons.joined(separator: "; ")])
            for route in app.routes {
                if let reach = route.reach {
                    rows.append(["readiness_reach", route.dialect, route.route, "", "", app.app, String(route.openPushGaps), String(ReportFormatting.share(reach)), "", "", "", "", ""])
                }
                for loss in route.acceptedLosses {
                    rows.append(["readiness_accepted", route.dialect, route.route, loss.field, loss.kind, app.app, String(loss.requests), String(ReportFormatting.share(loss.share)),
                                 "", "", "", loss.exampleRequestId, loss.exampleMessage])
                }
            }
        }
        rows.append(["readiness_refused", "", "", "", "", "", String(r.refusedBeforeAdmission), "", "", "", "", "", r.refusedBeforeAdmissionLine])
        for note in r.notes { rows.append(["readiness_note", "", "", "", "", "", "", "", "", "", "", "", note]) }
        for step in r.nextSteps { rows.append(["readiness_next_step", "", "", "", "", "", "", "", "", "", "", "", step]) }
        return rows
    }

    /// The windows in one phrase for a header: each app's own unless `--since` was given.
    static func windows(_ r: Readiness) -> String {
        let asked = r.filter.summary
        guard r.filter.since == nil else { return asked }
        return "each app since its current stage began (the whole audit for an app with no stage change recorded)" + (asked.isEmpty ? "" : "; " + asked)
    }

    /// `{"since", "until", "basis", "description"}`.
    static func window(_ w: ReadinessWindow) -> JSONValue {
        .object(["since": w.since.map { .int($0) } ?? .null, "until": w.until.map { .int($0) } ?? .null, "basis": .string(w.basis.rawValue),
                 "description": .string(w.description)])
    }
}
