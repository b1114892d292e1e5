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

    /// An app sending to an OpenPush app: one of its admitted requests, not rejected, named it.
    struct Sender: Hashable {
        var openPushApp, app: String
    }

    /// The routes with at least one admitted request.
    var routes: [AuditReader.ReadinessKey: Route] = [:]
    /// The OpenPush figures of every route with any (as the primary).
    var openPush: [AuditReader.ReadinessKey: Route] = [:]
    /// Requests refused before admission.
    var refusedBeforeAdmission = 0
    /// The apps sending to each OpenPush app in the window (unfiltered by app, dialect or
    /// route only when the scope is: ``AuditReader/readinessBusiestMinutes(_:_:)`` takes them then).
    var senders: Set<Sender> = []
}

extension ReadinessRequestRollup.Route {
    /// Two parts of one route's figures (other OpenPush apps) together.
    static func + (a: Self, b: Self) -> Self {
        Self(requests: a.requests + b.requests, notOnOpenPush: a.notOnOpenPush + b.notOnOpenPush, notOnLegacy: a.notOnLegacy + b.notOnLegacy,
             calls: a.calls + b.calls, errors: a.errors + b.errors, rateLimited: a.rateLimited + b.rateLimited, gaps: a.gaps + b.gaps,
             newestErrorMinute: [a.newestErrorMinute, b.newestErrorMinute].compactMap { $0 }.max())
    }
}

extension AuditReader {
    /// ``ReadinessRequestRollup`` over `window`'s whole minutes: one `GROUP BY` over the
    /// rollups, admitted and refused rows apart, and per OpenPush app (its senders; each
    /// route's figures are its parts added up).
    func readinessRequestRollup(_ scope: ReadinessScope, _ window: RollupWindow) throws(AuditError) -> ReadinessRequestRollup {
        let (from, clause, arguments) = readinessRollupClause(scope, .requests, window, admitted: nil)
        let gap = { (outcome: AuditOutcome) in "sum(CASE WHEN outcome = '\(outcome.rawValue)' THEN requests ELSE 0 END)" }
        let rows = try query("""
            SELECT \(Self.rollupAppKey), dialect, route, admitted, sum(requests), \(gap(.notOnOpenPush)), \(gap(.notOnLegacy)),
                   sum(openpush_calls), sum(openpush_errors), sum(openpush_rate_limited), sum(openpush_gaps), max(CASE WHEN openpush_errors <> 0 THEN minute END),
                   target_app, sum(CASE WHEN outcome <> 'rejected' THEN requests ELSE 0 END)
            FROM \(from) \(clause) GROUP BY 1, 2, 3, 4, target_app
            """, arguments)
        var rollup = ReadinessRequestRollup()
        var admitted: [ReadinessKey: ReadinessRequestRollup.Route] = [:]
        for row in rows {
            let figure = { (index: Int) in Int(row[index].integerValue ?? 0) }
            guard row[3].integerValue == 1 else {
                rollup.refusedBeforeAdmission += figure(4)
                continue
            }
            let route = ReadinessRequestRollup.Route(requests: figure(4), notOnOpenPush: figure(5), notOnLegacy: figure(6), calls: figure(7), errors: figure(8),
                                                     rateLimited: figure(9), gaps: figure(10), newestErrorMinute: row[11].integerValue)
            admitted[key(row)] = admitted[key(row)].map { $0 + route } ?? route
            if let target = row[12].textValue, !target.isEmpty, figure(13) != 0 { rollup.senders.insert(.init(openPushApp: target, app: key(row).app)) }
        }
        for (key, route) in admitted {
            if route.requests != 0 { rollup.routes[key] = route }
            if route.calls != 0 || route.gaps != 0 || route.rateLimited != 0 { rollup.openPush[key] = route }
        }
        return rollup
    }
}
