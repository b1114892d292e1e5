/// Turns a route's figures into a verdict with its reasons, and routes into apps.
enum ReadinessJudge {
    /// `not ready` when any threshold is broken (a problem already seen stays one whatever
    /// the volume), else `not enough traffic` when requests or comparisons are short of the
    /// minimum, else `ready`.
    static func judge(_ figures: RouteReadiness, _ t: ReadinessThresholds) -> RouteReadiness {
        var route = figures
        var broken: [String] = [], short: [String] = []
        let pct = ReportFormatting.percent
        for w in route.warnings where w.share > t.maxWarningShare {
            broken.append("\(w.field) \(w.kind) on \(w.requests) of \(ReportFormatting.count(route.requests, "request")) (\(pct(w.share)); at most \(pct(t.maxWarningShare))), e.g. \(w.exampleRequestId): \(w.exampleMessage)")
        }
        for r in route.rejections where r.share > t.maxRejectionShare {
            let who = r.kind == "rejected" ? "PushBridge rejected" : "OpenPush would reject"
            broken.append("\(who) \(r.requests) of \(ReportFormatting.count(route.requests, "request")) on \(r.field) (\(pct(r.share)); at most \(pct(t.maxRejectionShare))), e.g. \(r.exampleRequestId): \(r.exampleMessage)")
        }
        if route.shadowed > 0, route.disagreementShare > t.maxDisagreementShare {
            let cells = route.disagreementCells.map { "\($0.primary) vs \($0.shadow) ×\($0.count) (e.g. \($0.exampleRequestId))" }.joined(separator: ", ")
            broken.append("shadow disagreed on \(route.disagreements) of \(ReportFormatting.count(route.shadowed, "comparison")) (\(pct(route.disagreementShare)); at most \(pct(t.maxDisagreementShare))): \(cells)")
        }
        if route.openPushCalls > 0, route.openPushErrorRate > t.maxOpenPushErrorRate {
            broken.append("OpenPush answered \(route.openPushErrors) of \(ReportFormatting.count(route.openPushCalls, "call")) without a 2xx (\(pct(route.openPushErrorRate)); at most \(pct(t.maxOpenPushErrorRate)))")
        }
        if route.openPushCalls > 0, route.rateLimitedRate > t.maxRateLimitedRate {
            broken.append("OpenPush answered 429 to \(route.rateLimited) of \(ReportFormatting.count(route.openPushCalls, "call")) (\(pct(route.rateLimitedRate)); at most \(pct(t.maxRateLimitedRate)))")
        }
        if route.requests < t.minRequests { short.append("\(ReportFormatting.count(route.requests, "request")) seen; \(t.minRequests) needed") }
        if route.shadowed < t.minShadowed {
            short.append("\(ReportFormatting.count(route.shadowed, "shadow comparison")); \(t.minShadowed) needed (run the app in shadow mode, or set readiness.min_shadowed to 0)")
        }
        route.verdict = !broken.isEmpty ? .notReady : !short.isEmpty ? .notEnoughTraffic : .ready
        route.reasons = broken + short
        return route
    }

    /// Apps in configuration order (a configured app with no traffic is `not enough traffic`),
    /// then the apps only the audit knows, by name; each app's verdict is its worst route's.
    /// An app `filter` names that neither the configuration nor the window knows is `not
    /// enough traffic` too, under that name: asking for an app never gets "no app".
    static func assemble(_ routes: [AuditReader.ReadinessKey: RouteReadiness], filter: ReportFilter, settings: ReadinessSettings) -> Readiness {
        var byApp: [String: [RouteReadiness]] = [:]
        for (key, route) in routes { byApp[key.app, default: []].append(route) }
        var apps: [AppReadiness] = []
        var seen = Set<String>()
        let t = settings.thresholds
        for app in settings.apps where filter.app == nil || filter.app == app.name || filter.app == app.sourceAppId {
            let found = (byApp[app.name] ?? []) + (app.sourceAppId == app.name ? [] : byApp[app.sourceAppId] ?? [])
            seen.formUnion([app.name, app.sourceAppId])
            apps.append(make(app.name, found, t))
        }
        for name in byApp.keys.sorted() where !seen.contains(name) { apps.append(make(name, byApp[name] ?? [], t)) }
        if let asked = filter.app, apps.isEmpty { apps.append(make(asked, [], t)) }
        return Readiness(filter: filter, thresholds: t, apps: apps, notes: [Readiness.unhandledRoutesNote])
    }

    private static func make(_ name: String, _ routes: [RouteReadiness], _ t: ReadinessThresholds) -> AppReadiness {
        let sorted = routes.sorted { ($0.dialect, $0.route) < ($1.dialect, $1.route) }
        guard let worst = sorted.map(\.verdict).max() else {
            return AppReadiness(app: name, verdict: .notEnoughTraffic, routes: [], reasons: [noTraffic(t)])
        }
        return AppReadiness(app: name, verdict: worst, routes: sorted, reasons: [])
    }

    /// The reason of an app without a request in the window: what a route would need.
    static func noTraffic(_ t: ReadinessThresholds) -> String {
        t.minRequests > 0 ? "0 requests seen; \(t.minRequests) needed" : "no requests in the window"
    }
}
