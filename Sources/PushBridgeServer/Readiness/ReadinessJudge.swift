/// Turns a route's figures into a verdict with its reasons, and routes into apps.
enum ReadinessJudge {
    /// `not ready` when any threshold is broken (a problem already seen stays one whatever
    /// the volume), else `not enough traffic` when requests or comparisons are short of the
    /// minimum, else `ready`. A warning field in `accepted` (the app's accepted losses) is
    /// moved to ``RouteReadiness/acceptedLosses`` and blocks nothing. Each reason brings a
    /// next step naming `app`.
    /// `run` is the app's current stage from the history (nil: not known): shadow comparisons
    /// are asked for only before the cut-over, and no volume in an `openpush` it migrated to
    /// (``ReadinessStageSteps``). `database` and `since` go into the commands the steps print.
    static func judge(_ figures: RouteReadiness, _ t: ReadinessThresholds, app: String, accepted: Set<String> = [], run: StageRun? = nil,
                      database: String? = nil, since: Int64? = nil) -> RouteReadiness {
        let stage = run?.latest.stage
        var route = figures
        var broken: [String] = [], short: [String] = [], steps: [String] = []
        let pct = ReportFormatting.percent
        let on = "\(route.dialect) \(route.route)"
        route.acceptedLosses = route.warnings.filter { accepted.contains($0.field) }
        route.warnings.removeAll { accepted.contains($0.field) }
        for w in route.warnings where w.share > t.maxWarningShare {
            broken.append("\(w.field) \(w.kind) on \(w.requests) of \(ReportFormatting.count(route.requests, "request")) (\(pct(w.share)); at most \(pct(t.maxWarningShare))), e.g. \(w.exampleRequestId): \(w.exampleMessage)")
            steps.append("\(app): stop sending \(w.field) on \(on) (OpenPush loses it), or accept its loss: list it under readiness.accepted_losses.\(app)")
        }
        for r in route.rejections where r.share > t.maxRejectionShare {
            let who = r.kind == "rejected" ? "PushBridge rejected" : "OpenPush would reject"
            broken.append("\(who) \(r.requests) of \(ReportFormatting.count(route.requests, "request")) on \(r.field) (\(pct(r.share)); at most \(pct(t.maxRejectionShare))), e.g. \(r.exampleRequestId): \(r.exampleMessage)")
            steps.append("\(app): change the requests refused on \(r.field) (\(on)) to follow the rule: \(ReadinessCommands.auditShow(r.exampleRequestId, database: database))")
        }
        if route.shadowed > 0, route.disagreementShare > t.maxDisagreementShare {
            let cells = route.disagreementCells.map { "\($0.primary) vs \($0.shadow) ×\($0.count) (e.g. \($0.exampleRequestId))" }.joined(separator: ", ")
            broken.append("shadow disagreed on \(route.disagreements) of \(ReportFormatting.count(route.shadowed, "comparison")) (\(pct(route.disagreementShare)); at most \(pct(t.maxDisagreementShare))): \(cells)")
            steps.append("\(app): find why the two providers answered \(on) differently: \(ReadinessCommands.auditShow(route.disagreementCells.first?.exampleRequestId ?? "", database: database))")
        }
        if route.openPushCalls > 0, route.openPushErrorRate > t.maxOpenPushErrorRate {
            broken.append("OpenPush answered \(route.openPushErrors) of \(ReportFormatting.count(route.openPushCalls, "call")) without a 2xx (\(pct(route.openPushErrorRate)); at most \(pct(t.maxOpenPushErrorRate)))")
            let example = route.openPushErrorExample.map { ", e.g. \(ReadinessCommands.auditShow($0, database: database))" } ?? ""
            steps.append("\(app): find why OpenPush refused \(on) calls: \(ReadinessCommands.auditList(app: app, since: since, database: database))\(example)")
        }
        if route.openPushCalls > 0, route.rateLimitedRate > t.maxRateLimitedRate {
            broken.append("OpenPush answered 429 to \(route.rateLimited) of \(ReportFormatting.count(route.openPushCalls, "call")) (\(pct(route.rateLimitedRate)); at most \(pct(t.maxRateLimitedRate)))")
            steps.append("\(app): send fewer requests a minute: OpenPush takes \(t.openPushRequestsPerMinute) per 60 s per app")
        }
        let volume = ReadinessStageSteps.asksForVolume(run)
        if volume, route.requests < t.minRequests {
            short.append("\(ReportFormatting.count(route.requests, "request")) seen; \(t.minRequests) needed")
            steps.append("\(app): keep sending \(on) through PushBridge until \(t.minRequests) requests are seen (\(route.requests) so far)")
        }
        if volume, ReadinessStageSteps.asksForShadow(run), route.shadowed < t.minShadowed {
            short.append("\(ReportFormatting.count(route.shadowed, "shadow comparison")); \(t.minShadowed) needed (run the app in shadow mode, or set readiness.min_shadowed to 0)")
            steps.append("\(app): run it in shadow mode until \(on) has \(t.minShadowed) comparisons (\(route.shadowed) so far), or set readiness.min_shadowed to 0")
        }
        route.verdict = !broken.isEmpty ? .notReady : !short.isEmpty ? .notEnoughTraffic : .ready
        route.reasons = broken + short
        route.nextSteps = steps
        return route
    }

    /// Apps in configuration order (a configured app with no traffic is `not enough traffic`),
    /// then the apps only the audit knows, by name; each app's verdict is its worst route's,
    /// or `not ready` when its busiest minute is above OpenPush's rate limit. An app `filter`
    /// names that neither the configuration nor the window knows is `not enough traffic`
    /// too, under that name: asking for an app never gets "no app".
    static func assemble(_ routes: [AuditReader.ReadinessKey: RouteReadiness], filter: ReportFilter, settings: ReadinessSettings,
                         busiest: [String: BusiestMinute] = [:], inFlight: [ActivityCount]? = nil, runs: [String: StageRun] = [:], database: String? = nil) -> Readiness {
        var byApp: [String: [RouteReadiness]] = [:]
        for (key, route) in routes { byApp[key.app, default: []].append(route) }
        var apps: [AppReadiness] = []
        var seen = Set<String>()
        let t = settings.thresholds
        func counts(_ names: [String]) -> [ActivityCount]? { inFlight.map { $0.filter { names.contains($0.app) } } }
        func make(_ name: String, _ routes: [RouteReadiness], busiest: BusiestMinute?, inFlight: [ActivityCount]?) -> AppReadiness {
            let run = settings.names(of: name).lazy.compactMap { runs[$0] }.first
            return Self.make(name, routes, t, busiest: busiest, inFlight: inFlight, run: run, database: database)
        }
        for app in settings.apps where filter.app == nil || filter.app == app.name || filter.app == app.sourceAppId {
            let found = (byApp[app.name] ?? []) + (app.sourceAppId == app.name ? [] : byApp[app.sourceAppId] ?? [])
            seen.formUnion([app.name, app.sourceAppId])
            let minute = [busiest[app.name], busiest[app.sourceAppId]].compactMap { $0 }.max { $0.requests < $1.requests }
            apps.append(make(app.name, found, busiest: minute, inFlight: counts([app.name, app.sourceAppId])))
        }
        for name in byApp.keys.sorted() where !seen.contains(name) {
            apps.append(make(name, byApp[name] ?? [], busiest: busiest[name], inFlight: counts([name])))
        }
        if let asked = filter.app, apps.isEmpty { apps.append(make(asked, [], busiest: nil, inFlight: counts([asked]))) }
        var readiness = Readiness(filter: filter, thresholds: t, apps: apps, notes: [Readiness.unhandledRoutesNote])
        readiness.database = database
        return readiness
    }

    /// `run` is the app's current stage in the history (nil: not known); `database` the audit judged.
    private static func make(_ name: String, _ routes: [RouteReadiness], _ t: ReadinessThresholds, busiest: BusiestMinute?, inFlight: [ActivityCount]?,
                             run: StageRun?, database: String?) -> AppReadiness {
        let stage = run?.latest.stage
        let sorted = routes.sorted { ($0.dialect, $0.route) < ($1.dialect, $1.route) }
        var app: AppReadiness
        if let worst = sorted.map(\.verdict).max() {
            app = AppReadiness(app: name, verdict: worst, routes: sorted, reasons: [])
        } else {
            app = AppReadiness(app: name, verdict: .notEnoughTraffic, routes: [], reasons: [noTraffic(t)])
            app.nextSteps = [ReadinessStageSteps.noTraffic(name, stage, t)]
        }
        app.busiestMinute = busiest
        app.inFlight = inFlight
        app.stage = run
        if let busiest, busiest.requests > t.openPushRequestsPerMinute {
            let behind = busiest.requests - t.openPushRequestsPerMinute
            let others = busiest.apps.filter { $0 != name }
            let shared = others.isEmpty ? "" : " with \(others.joined(separator: ", ")) together"
            let target = busiest.openPushApp.map { " to OpenPush app \($0)" } ?? ""
            app.reasons.append("busiest minute \(RFC3339.format(milliseconds: busiest.start)) had \(busiest.requests) OpenPush sends\(target)\(shared); "
                + "OpenPush accepts \(t.openPushRequestsPerMinute) per 60 s per app: "
                + "at that rate a paced queue falls \(ReportFormatting.count(behind, "send")) (\(Self.duration(seconds: behind * 60 / t.openPushRequestsPerMinute))) further behind every minute")
            app.nextSteps.append("\(name): spread its sends below \(t.openPushRequestsPerMinute) a minute\(others.isEmpty ? "" : " (with \(others.joined(separator: ", ")), which share its OpenPush app)") "
                + "(its busiest minute had \(busiest.requests)), or agree a higher limit with OpenPush and set readiness.openpush_requests_per_minute")
            app.verdict = .notReady
        }
        if let run, stage?.rolledBack == true { app.nextSteps.append(ReadinessStageSteps.rolledBack(name, run, database: database)) }
        if app.verdict == .ready, let step = ReadinessStageSteps.ready(name, stage) { app.nextSteps.append(step) }
        app.legacy = legacy(app, t)
        return app
    }

    /// The second verdict: reach at or above ``ReadinessThresholds/minReach`` on every route
    /// OpenPush was called on (at least one), and no activity in flight on the legacy side.
    /// With the app's stage known: before `openpush` its new starts still need the legacy
    /// provider (a reason); in `openpush` reach no longer gates it (a start OpenPush cannot
    /// deliver has no legacy side to go to any more), only the activities in flight do; with
    /// its legacy provider already off there is nothing left to say.
    static func legacy(_ app: AppReadiness, _ t: ReadinessThresholds) -> LegacySwitchOff {
        var reasons: [String] = [], steps: [String] = []
        let name = app.app, pct = ReportFormatting.percent
        let stage = app.stage?.latest.stage
        if let stage, !stage.legacy { return LegacySwitchOff(verdict: .canBeSwitchedOff, reasons: [], nextSteps: ["\(name): its legacy provider is already off"]) }
        if let stage, stage.startMode != .openpush {
            reasons.append("its new starts still go to the legacy provider in its stage (\(stage.summary)): legacy off comes after openpush and the drain")
        }
        let weighsReach = stage?.startMode != .openpush
        let reached = weighsReach ? app.routes.filter { $0.reach != nil } : []
        if weighsReach, reached.isEmpty {
            reasons.append("OpenPush's reach is not known: no call went to OpenPush in the window (observe mode, or a rollout at 0%)")
            steps.append(ReadinessStageSteps.learnReach(name, stage))
        }
        for route in reached {
            guard let reach = route.reach, reach < t.minReach else { continue }
            reasons.append("\(route.dialect) \(route.route): OpenPush reached \(pct(reach)) of \(ReportFormatting.count(route.openPushCalls + route.openPushGaps, "call")) "
                + "(at least \(pct(t.minReach))); \(ReportFormatting.count(route.openPushGaps, "population gap")): phones not on OpenPush yet"
                + (route.openPushErrors > 0 ? "; \(route.openPushErrors) refused by OpenPush (not delivered)" : ""))
            steps.append("\(name): keep the legacy provider while phones move to the app version that registers with OpenPush (reach on \(route.dialect) \(route.route) \(pct(reach)), needs \(pct(t.minReach)))")
        }
        if let counts = app.inFlight {
            if let until = counts.filter(\.forgotten).map(\.lastReachableUntil).max() {
                let forgotten = counts.filter(\.forgotten).reduce(0) { $0 + $1.count }, until = RFC3339.format(milliseconds: until)
                reasons.append("the activity ledger forgot \(ReportFormatting.count(forgotten, "activity", plural: "activities")) in flight over limits.max_activities; "
                    + "where they live is not known, so legacy cannot be switched off before \(until), when the last of them can no longer be updated")
                steps.append("\(name): keep the legacy provider until \(until) (forgotten ledger rows), and raise limits.max_activities above its activities in flight")
            }
            let legacy = counts.filter { !$0.forgotten && $0.holder.includesLegacy }
            let total = legacy.reduce(0) { $0 + $1.count }
            if total > 0, let until = legacy.map(\.lastReachableUntil).max() {
                let until = RFC3339.format(milliseconds: until)
                reasons.append("\(ReportFormatting.count(total, "activity", plural: "activities")) in flight on the legacy side; the last can be updated until \(until)")
                steps.append("\(name): keep the legacy provider until \(until), when the last activity it holds can no longer be updated")
            }
        } else {
            reasons.append("activities in flight on the legacy side are not known (no activity ledger was read)")
        }
        if reasons.isEmpty { steps.append("\(name): the legacy provider can be switched off for it") }
        return LegacySwitchOff(verdict: reasons.isEmpty ? .canBeSwitchedOff : .notYet, reasons: reasons, nextSteps: steps)
    }

    /// `45 s`, `3 min 20 s`.
    static func duration(seconds: Int) -> String {
        seconds < 60 ? "\(seconds) s" : seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds / 60) min \(seconds % 60) s"
    }

    /// The reason of an app without a request in the window: what a route would need.
    static func noTraffic(_ t: ReadinessThresholds) -> String {
        t.minRequests > 0 ? "0 requests seen; \(t.minRequests) needed" : "no requests in the window"
    }
}
