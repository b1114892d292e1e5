import PushBridgeCore

extension AuditReader {
    /// A route's OpenPush figures: calls, errors (no 2xx), calls with any 429, population gaps,
    /// and the newest error's request id.
    struct ReadinessOpenPushFigures {
        var calls = 0, errors = 0, rateLimited = 0, gaps = 0
        var example: String?

        /// The figures of two disjoint sets of requests together.
        static func + (a: ReadinessOpenPushFigures, b: ReadinessOpenPushFigures) -> ReadinessOpenPushFigures {
            ReadinessOpenPushFigures(calls: a.calls + b.calls, errors: a.errors + b.errors, rateLimited: a.rateLimited + b.rateLimited, gaps: a.gaps + b.gaps,
                                     example: [a.example, b.example].compactMap { $0 }.max())
        }
    }

    /// Calls to OpenPush: rows OpenPush answered as the primary (not observe rows, not rows
    /// the legacy provider answered), plus comparisons with OpenPush as the shadow. An error
    /// is a call that ended without a 2xx; a rate-limited call had at least one 429. A
    /// comparison whose OpenPush side answered a population gap is a gap, not a call. The
    /// primary's figures come from the rollups' counters (``ReadinessOpenPushCounts``) for
    /// whole minutes, the example error from the log in the newest minute that had one; the
    /// shadow's are `shadow` (``readinessShadowFigures(_:)``).
    func readinessOpenPush(_ scope: ReadinessScope, _ rolled: ReadinessRequestRollup, shadow: [ReadinessKey: ReadinessOpenPushFigures],
                           into routes: inout [ReadinessKey: RouteReadiness]) throws(AuditError) {
        let primary = try fromRollups(scope, merging: +, rollups: { _ throws(AuditError) in
            try openPushPrimary(scope, rolled)
        }, rows: { scope throws(AuditError) in
            try openPushPrimary(scope)
        })
        for (key, figures) in primary.merging(shadow, uniquingKeysWith: +) {
            routes[key]?.openPushCalls += figures.calls
            routes[key]?.openPushErrors += figures.errors
            routes[key]?.rateLimited += figures.rateLimited
            routes[key]?.openPushGaps += figures.gaps
            if let example = figures.example, example > (routes[key]?.openPushErrorExample ?? "") { routes[key]?.openPushErrorExample = example }
        }
    }

    /// Figures from rows of (app, dialect, route, calls, errors, rate limited, gaps, example).
    private func openPushFigures(_ rows: [[SQLiteValue]]) -> [ReadinessKey: ReadinessOpenPushFigures] {
        var figures: [ReadinessKey: ReadinessOpenPushFigures] = [:]
        for row in rows {
            figures[key(row), default: ReadinessOpenPushFigures()] = figures[key(row), default: ReadinessOpenPushFigures()]
                + ReadinessOpenPushFigures(calls: Int(row[3].integerValue ?? 0), errors: Int(row[4].integerValue ?? 0), rateLimited: Int(row[5].integerValue ?? 0),
                                           gaps: Int(row[6].integerValue ?? 0), example: row[7].textValue)
        }
        return figures
    }

    /// The primary's figures over whole minutes, from `rolled`; each route's example error
    /// read from the log over the newest rollup row with an error (a minute, or an hour).
    private func openPushPrimary(_ scope: ReadinessScope, _ rolled: ReadinessRequestRollup) throws(AuditError) -> [ReadinessKey: ReadinessOpenPushFigures] {
        var figures: [ReadinessKey: ReadinessOpenPushFigures] = [:]
        for (key, route) in rolled.openPush {
            var figure = ReadinessOpenPushFigures(calls: route.calls, errors: route.errors, rateLimited: route.rateLimited, gaps: route.gaps)
            if let minute = route.newestErrorMinute {
                var narrowed = scope
                let span = RollupWindow(since: scope.filter.since, until: scope.filter.until).span(ofMinute: minute)
                (narrowed.filter.since, narrowed.filter.until) = (span.since, span.until)
                figure.example = try openPushPrimary(narrowed, route: key)[key]?.example
            }
            figures[key] = figure
        }
        return figures
    }

    /// The primary's figures over the rows `scope` selects (of one route when given).
    private func openPushPrimary(_ scope: ReadinessScope, route: ReadinessKey? = nil) throws(AuditError) -> [ReadinessKey: ReadinessOpenPushFigures] {
        let only: [String] = route == nil ? [] : ["\(appKey) = ?", "r.dialect = ?", "r.route = ?"]
        let (primary, primaryArguments) = readinessClause(scope, extra: ["r.outcome IN ('forwarded', 'failed', 'sent')"]
            + LegacyMode.messages.map { _ in "coalesce(r.error_message, '') NOT LIKE ?" } + only)
        let legacyRows: [SQLiteValue] = LegacyMode.messages.map { .text($0 + "%") }
        let routeRows: [SQLiteValue] = route.map { [.text($0.app), .text($0.dialect), .text($0.route)] } ?? []
        let rateLimited = "EXISTS (SELECT 1 FROM json_each(coalesce(r.attempts, '[]')) AS a WHERE json_extract(a.value, '$.status') = 429)"
        let primaryGap = PopulationGap.sql(status: "r.upstream_status", body: "r.upstream_body")
        return openPushFigures(try query("""
            SELECT \(appKey), r.dialect, r.route, sum(CASE WHEN \(primaryGap) THEN 0 ELSE 1 END),
                   sum(CASE WHEN r.upstream_status BETWEEN 200 AND 299 OR \(primaryGap) THEN 0 ELSE 1 END),
                   sum(CASE WHEN \(rateLimited) THEN 1 ELSE 0 END), sum(CASE WHEN \(primaryGap) THEN 1 ELSE 0 END),
                   max(CASE WHEN r.upstream_status BETWEEN 200 AND 299 OR \(primaryGap) THEN NULL ELSE r.request_id END)
            FROM requests r \(primary) GROUP BY 1, 2, 3
            """, legacyRows + routeRows + primaryArguments))
    }
}
