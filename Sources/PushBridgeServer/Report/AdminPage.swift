/// `GET /admin/`: one small self-contained HTML page (inline CSS, no script, nothing fetched
/// from elsewhere; every stored value escaped) with, per app, its stage, rollout percent and
/// rollback state, the activities in flight on each side, its reach per route and both
/// readiness verdicts; then the readiness section with its reasons and next steps.
enum AdminPage {
    /// The page for `apps` (the running configuration's, in order), judged by `readiness`,
    /// with the ledger's `inFlight` counts (nil when not known), rendered at `now` (Unix ms).
    /// `history` is the newest stage changes, oldest first (its own section).
    static func render(apps: [AdminAppStatus], readiness: Readiness, inFlight: [ActivityCount]?, now: Int64, history: [StageChange] = []) -> String {
        let escape = ReportHTML.escape
        let dash = "—"
        var body = "<header><h1>PushBridge admin</h1><p class=\"sub\">\(ReportFormatting.count(apps.count, "app")) · \(escape(RFC3339.format(milliseconds: now)))"
        if !readiness.filter.summary.isEmpty { body += " · \(escape(readiness.filter.summary))" }
        body += "</p></header><section class=\"apps\"><h2>Apps</h2><div class=\"scroll\"><table><thead><tr><th>app</th><th>stage</th>"
            + "<th class=\"num\">rollout</th><th>rollback</th><th class=\"num\">in flight<br>on OpenPush</th><th class=\"num\">in flight<br>on legacy</th>"
            + "<th>legacy until</th><th>reach</th><th>cut-over</th><th>legacy</th></tr></thead><tbody>"
        for app in apps {
            let judged = readiness.apps.first { $0.app == app.name }
            let counts = inFlight.map { $0.filter { $0.app == app.name } }
            let side = { (includes: (ActivityHolder) -> Bool) in counts.map { String($0.filter { includes($0.holder) }.reduce(0) { $0 + $1.count }) } ?? dash }
            let legacyUntil = counts?.filter { $0.holder.includesLegacy && $0.count > 0 }.map(\.lastReachableUntil).max()
            let reach = (judged?.routes ?? []).compactMap { route in route.reach.map { "\(escape(route.route)) \(ReportFormatting.percent($0))" } }
            body += "<tr><td class=\"nw\">\(escape(app.name))<div class=\"dialect\">\(escape(app.dialect))</div></td><td class=\"nw\">\(escape(app.stage))</td>"
                + "<td class=\"num\">\(app.rolloutPercent.map { "\($0)%" } ?? dash)</td><td>\(escape(app.rollback ?? dash))</td>"
                + "<td class=\"num\">\(side { $0.includesOpenPush })</td><td class=\"num\">\(side { $0.includesLegacy })</td>"
                + "<td class=\"nw\">\(legacyUntil.map { escape(RFC3339.format(milliseconds: $0)) } ?? dash)</td>"
                + "<td class=\"nw\">\(reach.isEmpty ? dash : reach.joined(separator: "<br>"))</td>"
                + "<td class=\"nw\">\(judged.map { ReadinessHTML.badge($0.verdict) } ?? dash)</td>"
                + "<td>\(judged.map { ReadinessHTML.legacyBadge($0.legacy.verdict) } ?? dash)</td></tr>"
        }
        body += "</tbody></table></div>"
        if inFlight == nil { body += "<p class=\"legend\">Activities in flight are not known: this audit has no activity ledger to read.</p>" }
        body += "</section>" + StageChangesRendering.htmlSection(history) + ReadinessHTML.section(readiness)
        return ReportHTML.page(title: "PushBridge admin", body: body, extraStyle: ".dialect{font-size:12px;color:var(--muted)}")
    }
}
