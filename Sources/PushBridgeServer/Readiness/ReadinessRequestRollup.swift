/// Readiness's figures from `rollup_requests` over a window's whole minutes (its whole hours from
/// `rollup_requests_hourly`, ``AuditReader/rollupSource(_:_:)``), read in one
/// query: each route's requests and population gaps (``AuditReader/readinessRequests``), its
/// OpenPush calls as the primary with the newest minute that had an error
/// (``AuditReader/readinessOpenPush``), and the requests refused before admission. Each of
/// those read the table on its own before, each a sort of every rollup row (over 1,000,000
/// requests spread thinly, about as many rollup rows as requests): one read sorts them once.
struct ReadinessRequestRollup {
    /// One route's figures (admitted requests only).
    struct Route {
        /// Requests, and those refused as OpenPush's or the legacy provider's population gap.
        var requests = 0, notOnOpenPush = 0, notOnLegacy = 0
        /// OpenPush calls as the primary, their errors, 429s and population gaps.
        var calls = 0, errors = 0, rateLimited = 0, gaps = 0
        /// The newest rollup row's minute with an OpenPush error (an hourly row's: its hour's
        /// first, ``RollupWindow/span(ofMinute:)``), nil when none.
        var newestErrorMinute: Int64?
    }

    /// The routes with at least one admitted request.
    var routes: [AuditReader.ReadinessKey: Route] = [:]
    /// The OpenPush figures of every route with any (as the primary).
    var openPush: [AuditReader.ReadinessKey: Route] = [:]
    /// Requests refused before admission.
    var refusedBeforeAdmission = 0
}

extension AuditReader {
    /// ``ReadinessRequestRollup`` over `window`'s whole minutes: one `GROUP BY` over the
    /// rollups, admitted and refused rows apart.
    func readinessRequestRollup(_ scope: ReadinessScope, _ window: RollupWindow) throws(AuditError) -> ReadinessRequestRollup {
        let (from, clause, arguments) = readinessRollupClause(scope, .requests, window, admitted: nil)
        let gap = { (outcome: AuditOutcome) in "sum(CASE WHEN outcome = '\(outcome.rawValue)' THEN requests ELSE 0 END)" }
        let rows = try query("""
            SELECT \(Self.rollupAppKey), dialect, route, admitted, sum(requests), \(gap(.notOnOpenPush)), \(gap(.notOnLegacy)),
                   sum(openpush_calls), sum(openpush_errors), sum(openpush_rate_limited), sum(openpush_gaps), max(CASE WHEN openpush_errors <> 0 THEN minute END)
            FROM \(from) \(clause) GROUP BY 1, 2, 3, 4
            """, arguments)
        var rollup = ReadinessRequestRollup()
        for row in rows {
            let figure = { (index: Int) in Int(row[index].integerValue ?? 0) }
            guard row[3].integerValue == 1 else {
                rollup.refusedBeforeAdmission += figure(4)
                continue
            }
            let route = ReadinessRequestRollup.Route(requests: figure(4), notOnOpenPush: figure(5), notOnLegacy: figure(6), calls: figure(7), errors: figure(8),
                                                     rateLimited: figure(9), gaps: figure(10), newestErrorMinute: row[11].integerValue)
            if route.requests != 0 { rollup.routes[key(row)] = route }
            if route.calls != 0 || route.gaps != 0 || route.rateLimited != 0 { rollup.openPush[key(row)] = route }
        }
        return rollup
    }
}
