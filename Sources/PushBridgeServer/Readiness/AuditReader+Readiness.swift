import PushBridgeCore

extension AuditReader {
    /// The cut-over verdicts over the rows `filter` selects (its window, app, dialect, route),
    /// per app and route, judged with `settings`, and whether each app's legacy provider can
    /// be switched off given `inFlight` (the activity ledger's counts; nil when not known).
    /// An app is its configured name when the audit has one (`requests.app_name`), else its
    /// source app id; `filter.app` matches either.
    ///
    /// Without `filter.since`, each app with a stage change in the audit's `stage_changes` is
    /// judged since its current stage began (``StageRun``), the others over the whole audit;
    /// every app says which (``AppReadiness/window``). Its stage shapes its verdict and next
    /// steps (``ReadinessStageSteps``) whatever the window.
    public func readiness(_ filter: ReportFilter = ReportFilter(), settings: ReadinessSettings = ReadinessSettings(),
                          inFlight: [ActivityCount]? = nil) throws(AuditError) -> Readiness {
        try readiness(filter, settings: settings, inFlight: inFlight, rolledFindings: nil)
    }

    /// ``readiness(_:settings:inFlight:)``, its finding groups taken from `rolledFindings` (a
    /// report's read of the findings rollups) wherever that read is exactly the one a judgement
    /// needs (``RolledFindingGroups/serves(_:)``).
    func readiness(_ filter: ReportFilter, settings: ReadinessSettings, inFlight: [ActivityCount]?,
                   rolledFindings: RolledFindingGroups?) throws(AuditError) -> Readiness {
        writeCarriedRollupsFirst()
        // An audit no proxy of this build has migrated has no history: every app is judged on the whole audit.
        let runs = StageRun.current((try? stageChanges()) ?? [])
        var readiness = try judged(filter, settings: settings, inFlight: inFlight, runs: runs, rolledFindings: rolledFindings)
        for (index, app) in readiness.apps.enumerated() {
            guard filter.since == nil, let run = app.stage else {
                readiness.apps[index].window = ReadinessWindow(since: filter.since, until: filter.until, basis: filter.since == nil ? .wholeAudit : .asked)
                continue
            }
            var own = filter
            own.app = app.app
            own.since = run.began.at
            guard var judged = try judged(own, settings: settings, inFlight: inFlight, runs: runs, rolledFindings: rolledFindings).apps.first(where: { $0.app == app.app }) else { continue }
            judged.window = ReadinessWindow(since: run.began.at, until: filter.until, basis: .currentStage, began: run.began)
            readiness.apps[index] = judged
        }
        return readiness
    }

    /// The verdicts over exactly the rows `filter` selects, each app's stage taken from `runs`
    /// (the finding groups from `rolledFindings` when it was read for these rows).
    private func judged(_ filter: ReportFilter, settings: ReadinessSettings, inFlight: [ActivityCount]?, runs: [String: StageRun],
                        rolledFindings: RolledFindingGroups?) throws(AuditError) -> Readiness {
        writeCarriedRollupsFirst()
        let scope = ReadinessScope(filter: filter, appNames: filter.app.map { settings.names(of: $0) } ?? [])
        // The whole minutes' request figures, read once for every part that needs them.
        var rolled = ReadinessRequestRollup()
        let window = RollupWindow(since: filter.since, until: filter.until)
        if hasRollups, window.minutes != nil { rolled = try readinessRequestRollup(scope, window) }
        var routes = try readinessRequests(scope, rolled)
        for (key, figures) in try readinessFindings(scope, totals: routes, rolledFindings: rolledFindings) { routes[key]?.warnings = figures.warnings; routes[key]?.rejections = figures.rejections }
        let shadow = try readinessShadowFigures(scope)
        readinessShadow(shadow, into: &routes)
        try readinessOpenPush(scope, rolled, shadow: shadow.compactMapValues(\.openPush), into: &routes)
        var judged: [ReadinessKey: RouteReadiness] = [:]
        for (key, route) in routes {
            let names = settings.names(of: key.app)
            judged[key] = ReadinessJudge.judge(route, settings.thresholds, app: settings.displayName(of: key.app),
                                               accepted: settings.thresholds.acceptedLosses(for: names), run: names.lazy.compactMap { runs[$0] }.first,
                                               database: path, since: filter.since)
        }
        var readiness = ReadinessJudge.assemble(judged, filter: filter, settings: settings, busiest: try readinessBusiestMinutes(scope, rolled), inFlight: inFlight,
                                                runs: runs, database: path)
        readiness.refusedBeforeAdmission = try refusedBeforeAdmission(scope, rolled)
        return readiness
    }

    /// A route of one app: the grouping key of every readiness query.
    struct ReadinessKey: Hashable {
        var app, dialect, route: String
    }

    /// The rows every readiness query reads: the filter's, its app under every name it has.
    struct ReadinessScope {
        /// The window, app, dialect and route.
        var filter: ReportFilter
        /// The names `filter.app` goes by (its configured name and source app id); empty without `--app`.
        var appNames: [String]
    }

    /// `requests` aliased `r`, with the filter's bounds; rows no dialect had, requests on
    /// routes PushBridge does not migrate (outcome `unhandled`, the report lists them) and
    /// requests refused before admission (``admitted``) are left out. `--app` matches an app's
    /// configured name or its source app id, either way round (``ReadinessScope/appNames``).
    func readinessClause(_ scope: ReadinessScope, extra: [String] = [], admitted: Bool = true) -> (String, [SQLiteValue]) {
        let filter = scope.filter
        var conditions = ["r.dialect IS NOT NULL", "r.route IS NOT NULL", "r.outcome != 'unhandled'", admitted ? Self.admitted : "NOT \(Self.admitted)"] + extra
        var arguments: [SQLiteValue] = []
        if let since = filter.since { conditions.append("r.received_at >= ?"); arguments.append(.integer(since)) }
        if let until = filter.until { conditions.append("r.received_at < ?"); arguments.append(.integer(until)) }
        conditions += logBounds("r.id", since: filter.since, until: filter.until)
        let (narrowing, values) = readinessFilter(scope, prefix: "r.", appKey: appKey)
        return ("WHERE " + (conditions + narrowing).joined(separator: " AND "), arguments + values)
    }

    /// The conditions the filter's dialect, route and app put on a readiness query (the
    /// request's columns named with `prefix`; an app is `appKey` or its source app), shared by
    /// the log's rows (``readinessClause``) and the rollups (``readinessRollupClause``).
    func readinessFilter(_ scope: ReadinessScope, prefix: String, appKey: String) -> ([String], [SQLiteValue]) {
        var conditions: [String] = [], arguments: [SQLiteValue] = []
        if let dialect = scope.filter.dialect { conditions.append("\(prefix)dialect = ?"); arguments.append(.text(dialect)) }
        if let route = scope.filter.route { conditions.append("\(prefix)route = ?"); arguments.append(.text(route)) }
        if scope.filter.app != nil {
            let names = scope.appNames
            conditions.append("(\(appKey) IN (\(placeholders(names.count))) OR \(prefix)source_app IN (\(placeholders(names.count))))")
            arguments += (names + names).map { .text($0) }
        }
        return (conditions, arguments)
    }

    /// A request PushBridge admitted (an app accepted the caller's credential), told from one
    /// refused before admission: every refusal before admission — no or a wrong credential,
    /// an app not configured, no app named, a body over the limit, a malformed head, a request
    /// that came in while the proxy drained — is a `rejected` row without a translation
    /// (``AuditEntry`` keeps none for an unauthenticated caller), while a request refused
    /// after admission (a translation error, a rule) keeps its translation.
    static let admitted = "(r.outcome != 'rejected' OR r.translated IS NOT NULL)"

    /// Requests the filter selects that were refused before admission: reported apart (whole
    /// minutes from `rolled`).
    private func refusedBeforeAdmission(_ scope: ReadinessScope, _ rolled: ReadinessRequestRollup) throws(AuditError) -> Int {
        try fromRollups(scope, 0, +) { _ in
            rolled.refusedBeforeAdmission
        } rows: { scope throws(AuditError) in
            let (clause, arguments) = readinessClause(scope, admitted: false)
            return Int(try query("SELECT count(*) FROM requests r \(clause)", arguments).first?.first?.integerValue ?? 0)
        }
    }

    /// The app a row belongs to: its configured name, else its source app id.
    var appKey: String { appNameColumn == "NULL" ? "coalesce(r.source_app, '')" : "coalesce(r.app_name, r.source_app, '')" }

    /// The route a readiness row (app, dialect, route first) is about.
    func key(_ row: [SQLiteValue]) -> ReadinessKey {
        ReadinessKey(app: row[0].textValue ?? "", dialect: row[1].textValue ?? "", route: row[2].textValue ?? "")
    }

    /// Each route's requests and population gaps (whole minutes from `rolled`).
    private func readinessRequests(_ scope: ReadinessScope, _ rolled: ReadinessRequestRollup) throws(AuditError) -> [ReadinessKey: RouteReadiness] {
        let merge: ([ReadinessKey: RouteReadiness], [ReadinessKey: RouteReadiness]) -> [ReadinessKey: RouteReadiness] = { a, b in
            a.merging(b) { x, y in
                var sum = x
                (sum.requests, sum.openPushGaps, sum.legacyGaps) = (x.requests + y.requests, x.openPushGaps + y.openPushGaps, x.legacyGaps + y.legacyGaps)
                return sum
            }
        }
        return try fromRollups(scope, [:], merge) { _ in
            Dictionary(uniqueKeysWithValues: rolled.routes.map { key, figures in
                var route = RouteReadiness(dialect: key.dialect, route: key.route)
                (route.requests, route.openPushGaps, route.legacyGaps) = (figures.requests, figures.notOnOpenPush, figures.notOnLegacy)
                return (key, route)
            })
        } rows: { scope throws(AuditError) in
            let (clause, arguments) = readinessClause(scope)
            let gap = { (outcome: AuditOutcome) in "sum(CASE WHEN r.outcome = '\(outcome.rawValue)' THEN 1 ELSE 0 END)" }
            return readinessRoutes(try query("SELECT \(appKey), r.dialect, r.route, count(*), \(gap(.notOnOpenPush)), \(gap(.notOnLegacy)) FROM requests r \(clause) GROUP BY 1, 2, 3",
                                             arguments))
        }
    }

    /// Routes from rows of (app, dialect, route, requests, OpenPush gaps, legacy gaps).
    private func readinessRoutes(_ rows: [[SQLiteValue]]) -> [ReadinessKey: RouteReadiness] {
        var routes: [ReadinessKey: RouteReadiness] = [:]
        for row in rows {
            var route = RouteReadiness(dialect: row[1].textValue ?? "", route: row[2].textValue ?? "")
            route.requests = Int(row[3].integerValue ?? 0)
            route.openPushGaps = Int(row[4].integerValue ?? 0)
            route.legacyGaps = Int(row[5].integerValue ?? 0)
            routes[key(row)] = route
        }
        return routes
    }

}
