/// `GET /admin/`: one small self-contained HTML page (inline CSS, no script, nothing fetched
/// from elsewhere; every stored value escaped) with, per app, its stage, rollout percent and
/// whether the rollout runs or was rolled back, both readiness verdicts, the activities in
/// flight on each side, its reach per route and its next step; then "which side does a user
/// get" (``RolloutWhere``, a GET form on the page itself) and the readiness section with its
/// reasons and next steps. It fits a 1,280 px window: only the app table scrolls, and its
/// verdict columns come before the wide ones.
enum AdminPage {
    /// What the page's "which side does a user get" form asked, and the answer.
    struct Where: Sendable {
        /// The app asked about, as given.
        var app: String
        /// The user asked about, as given.
        var user: String
        /// The answer; nil when the app is not configured.
        var answer: RolloutWhere?
        /// Why there is no answer.
        var problem: String?
    }

    /// The page for `apps` (the running configuration's, in order), judged by `readiness`,
    /// with the ledger's `inFlight` counts (nil when not known), rendered at `now` (Unix ms),
    /// with the answer to the `where` form when one was asked; `history` is the newest stage
    /// changes, oldest first (their own section).
    static func render(apps: [AdminAppStatus], readiness: Readiness, inFlight: [ActivityCount]?, now: Int64, where asked: Where? = nil, history: [StageChange] = []) -> String {
        let escape = ReportHTML.escape
        var body = "<header><h1>PushBridge admin</h1><p class=\"sub\">\(ReportFormatting.count(apps.count, "app")) · \(escape(RFC3339.format(milliseconds: now)))"
        if !readiness.filter.summary.isEmpty { body += " · \(escape(readiness.filter.summary))" }
        body += "</p></header>" + appsSection(apps, readiness: readiness, inFlight: inFlight)
        body += whereSection(apps, asked: asked) + StageChangesRendering.htmlSection(history) + ReadinessHTML.section(readiness)
        return ReportHTML.page(title: "PushBridge admin", body: body, extraStyle: style)
    }

    /// The page's own style: a wider main column, each app a group of two rows (its figures,
    /// then its next step), cells that wrap between words, the form.
    static let style = ".dialect,.sub2{font-size:12px;color:var(--muted)}main{max-width:1400px;padding:24px 16px 48px}"
        + ".apps td,.apps th{padding:6px 7px}.apps tbody tr{background:none!important}.apps tbody tr.figures td{border-bottom:0}"
        + ".apps td.step{font-size:12px;color:#334155;padding-top:0;overflow-wrap:anywhere}.apps td.step b{color:var(--muted);font-weight:600;margin-right:6px}"
        + "form.where{display:flex;flex-wrap:wrap;gap:10px;align-items:end;margin:0 0 10px}form.where label{display:flex;flex-direction:column;font-size:12px;color:var(--muted)}"
        + "form.where input,form.where select,form.where button{font:inherit;padding:4px 8px}dl.where{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:8px 0 0}"
        + "dl.where dt{color:var(--muted)}dl.where dd{margin:0;overflow-wrap:anywhere}"

    /// One group per app: a row with its stage, rollout, verdicts, activities in flight and
    /// reach, and under it, across the figures, its next step.
    static func appsSection(_ apps: [AdminAppStatus], readiness: Readiness, inFlight: [ActivityCount]?) -> String {
        let escape = ReportHTML.escape
        let dash = "—"
        var body = "<section class=\"apps\"><h2>Apps</h2><div class=\"scroll\"><table><thead><tr><th>app</th><th>stage</th>"
            + "<th>rollout</th><th>rollout state</th><th>cut-over</th><th>legacy</th><th class=\"num\">in flight<br>on OpenPush</th><th class=\"num\">in flight<br>on legacy</th>"
            + "<th>legacy until</th><th>reach</th></tr></thead>"
        for app in apps {
            let judged = readiness.apps.first { $0.app == app.name }
            let counts = inFlight.map { $0.filter { $0.app == app.name } }
            let side = { (includes: (ActivityHolder) -> Bool) in counts.map { String($0.filter { includes($0.holder) }.reduce(0) { $0 + $1.count }) } ?? dash }
            let legacyUntil = counts?.filter { $0.holder.includesLegacy && $0.count > 0 }.map(\.lastReachableUntil).max()
            let reach = (judged?.routes ?? []).compactMap { route in route.reach.map { "\(escape(route.route)) \(ReportFormatting.percent($0))" } }
            body += "<tbody><tr class=\"figures\"><td class=\"nw\" rowspan=\"2\">\(escape(app.name))<div class=\"dialect\">\(escape(app.dialect))</div></td><td>\(escape(app.stage))</td>"
                + "<td>\(rollout(app))</td><td>\(rolloutState(app))</td>"
                + "<td class=\"nw\">\(judged.map { ReadinessHTML.badge($0.verdict) } ?? dash)</td>"
                + "<td class=\"nw\">\(judged.map { ReadinessHTML.legacyBadge($0.legacy.verdict) } ?? dash)</td>"
                + "<td class=\"num\">\(side { $0.includesOpenPush })</td><td class=\"num\">\(side { $0.includesLegacy })</td>"
                + "<td>\(legacyUntil.map(ReportHTML.time) ?? dash)</td>"
                + "<td class=\"nw\">\(reach.isEmpty ? dash : reach.joined(separator: "<br>"))</td></tr>"
                + "<tr><td class=\"step\" colspan=\"9\"><b>next step</b>\(nextStep(of: app.name, in: readiness).map(escape) ?? dash)</td></tr></tbody>"
        }
        body += "</table></div>"
        if inFlight == nil { body += "<p class=\"legend\">Activities in flight are not known: this audit has no activity ledger to read.</p>" }
        return body + "</section>"
    }

    /// The rollout cell: the percent while it runs; "rolled back" with the percent it had.
    static func rollout(_ app: AdminAppStatus) -> String {
        guard let percent = app.rolloutPercent else { return "—" }
        if case .rolledBack = app.rollback { return "<span class=\"nw\">rolled back</span><div class=\"sub2\">was \(percent)%</div>" }
        return "\(percent)%"
    }

    /// The rollout state cell: running, or rolled back at when, on which threshold.
    static func rolloutState(_ app: AdminAppStatus) -> String {
        switch app.rollback {
        case nil: "—"
        case .running: "running"
        case .rolledBack(let at, let threshold):
            "<span title=\"\(ReportHTML.escape(RFC3339.format(milliseconds: at)))\">rolled back at \(ReportHTML.time(at)) UTC</span><div class=\"sub2\">\(ReportHTML.escape(threshold))</div>"
        }
    }

    /// The app's first next step, without the app's name it starts with; nil when it has none.
    static func nextStep(of app: String, in readiness: Readiness) -> String? {
        guard let judged = readiness.apps.first(where: { $0.app == app }),
              let step = (judged.nextSteps + judged.routes.flatMap(\.nextSteps) + judged.legacy.nextSteps).first else { return nil }
        return step.hasPrefix("\(app): ") ? String(step.dropFirst(app.count + 2)) : step
    }

    /// "Which side does a user get": the form (a GET to this page) and, when asked, the answer.
    static func whereSection(_ apps: [AdminAppStatus], asked: Where?) -> String {
        let escape = ReportHTML.escape
        var out = "<section class=\"where\"><h2>Which side does a user get?</h2><form class=\"where\" method=\"get\" action=\"/admin/\">"
            + "<label>app<select name=\"where\">"
        for app in apps {
            out += "<option value=\"\(escape(app.name))\"\(asked?.app == app.name ? " selected" : "")>\(escape(app.name))</option>"
        }
        out += "</select></label><label>user (external id)<input name=\"user\" value=\"\(escape(asked?.user ?? ""))\" required></label><button type=\"submit\">where?</button></form>"
        if let asked {
            if let answer = asked.answer {
                out += "<dl class=\"where\">" + answer.fields.map { "<dt>\(escape($0.label))</dt><dd>\(escape($0.value))</dd>" }.joined() + "</dl>"
            } else {
                out += "<p class=\"legend\">\(escape(asked.problem ?? "no answer"))</p>"
            }
        } else {
            out += "<p class=\"legend\">The bucket, the side and why, from the function the router places new starts with (as <code>pushbridge rollout where APP --user KEY</code>).</p>"
        }
        return out + "</section>"
    }
}
