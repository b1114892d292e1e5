import PushBridgeCore

/// A window split for the shadow rollup: its whole hours (read from `rollup_shadow_hourly`,
/// ``AuditRollupShadowSchema``) and the partial hours at either edge (read from the
/// comparisons joined to the log), so that figures added from both are exactly the rows'.
/// A window inside one hour is all edge.
struct ShadowRollupWindow {
    /// The whole hours `[from, to)` (`received_at / 3600000`; nil: unbounded), or nil when none.
    var hours: (from: Int64?, to: Int64?)?
    /// The partial hours, Unix ms `[since, until)`.
    var edges: [(since: Int64?, until: Int64?)] = []

    /// The split of `[since, until)` (either open).
    init(since: Int64?, until: Int64?) {
        let hour = AuditRollupShadowSchema.hourMs
        let first = since.map { ($0 + hour - 1) / hour }, last = until.map { $0 / hour }
        if let first, let last, first >= last {
            edges = [(since, until)]
            return
        }
        hours = (first, last)
        if let since, let first, since < first * hour { edges.append((since, first * hour)) }
        if let until, let last, last * hour < until { edges.append((last * hour, until)) }
    }
}

extension AuditReader {
    /// A route's shadow figures: comparisons, disagreements (exactly one side 2xx), expected
    /// ones (the one refusal OpenPush's population gap), the disagreements' status-class pairs
    /// with their newest request id, and OpenPush's figures as the shadow.
    struct ReadinessShadowFigures {
        /// Comparisons sent, disagreements (not expected) and expected disagreements.
        var shadowed = 0, disagreements = 0, expected = 0
        /// Disagreements per (primary class, shadow class): count and newest request id.
        var cells: [ReadinessDisagreementCell: (count: Int, example: String)] = [:]
        /// Calls to OpenPush as the shadow (``readinessOpenPush(_:_:shadow:into:)``); nil when it never was.
        var openPush: ReadinessOpenPushFigures?

        /// The disagreement cells, most comparisons first, then by primary and shadow class.
        var disagreementCells: [ReadinessDisagreement] {
            cells.map { ReadinessDisagreement(primary: $0.key.primary, shadow: $0.key.shadow, count: $0.value.count, exampleRequestId: $0.value.example) }
                .sorted { ($1.count, $0.primary, $0.shadow) < ($0.count, $1.primary, $1.shadow) }
        }
    }

    /// A disagreement's status-class pair.
    struct ReadinessDisagreementCell: Hashable {
        /// Each side's provider and status class (``AuditRollupShadowSchema/statusClass(_:)``).
        var primary, shadow: String
    }

    /// The columns every shadow read groups by after (app, dialect, route), in
    /// ``AuditRollupShadowSchema/key``'s order: the status classes and the verdict flags.
    private static let shadowGrouping = ["primary_class", "shadow_class", "disagreed", "expected", "openpush_shadow", "shadow_accepted", "shadow_gap", "shadow_429"]

    /// Each route's shadow figures over `scope`'s window: whole hours from the shadow rollup
    /// when the audit has it, the rest from the comparisons joined to their requests. A shadow
    /// skipped for live traffic (``ShadowComparison/Verdict/shadowSkipped``) was not sent and
    /// is not judged.
    func readinessShadowFigures(_ scope: ReadinessScope) throws(AuditError) -> [ReadinessKey: ReadinessShadowFigures] {
        var figures: [ReadinessKey: ReadinessShadowFigures] = [:]
        guard hasShadowRollup else {
            foldShadow(try shadowRows(scope), into: &figures)
            return figures
        }
        let window = ShadowRollupWindow(since: scope.filter.since, until: scope.filter.until)
        if let hours = window.hours { foldShadow(try shadowRollupRows(scope, hours: hours), into: &figures) }
        for edge in window.edges {
            var narrowed = scope
            (narrowed.filter.since, narrowed.filter.until) = (edge.since, edge.until)
            foldShadow(try shadowRows(narrowed), into: &figures)
        }
        return figures
    }

    /// The rollup's rows of `hours` the scope selects, grouped as ``shadowRows(_:)`` groups the comparisons.
    private func shadowRollupRows(_ scope: ReadinessScope, hours: (from: Int64?, to: Int64?)) throws(AuditError) -> [[SQLiteValue]] {
        var conditions = ["sent = 1", "dialect <> ''", "route <> ''"], arguments: [SQLiteValue] = []
        if let from = hours.from { conditions.append("hour >= ?"); arguments.append(.integer(from)) }
        if let to = hours.to { conditions.append("hour < ?"); arguments.append(.integer(to)) }
        let (narrowing, values) = readinessFilter(scope, prefix: "", appKey: Self.rollupAppKey)
        let grouping = Self.shadowGrouping.joined(separator: ", ")
        return try query("""
            SELECT \(Self.rollupAppKey), dialect, route, \(grouping), sum(comparisons), max(newest_request_id)
            FROM \(AuditRollupShadowSchema.table) WHERE \((conditions + narrowing).joined(separator: " AND ")) GROUP BY 1, 2, 3, \(grouping)
            """, arguments + values)
    }

    /// The comparisons the scope selects (sent ones, of requests readiness counts), grouped by
    /// route, status classes and verdict flags, each group's count and newest request id.
    private func shadowRows(_ scope: ReadinessScope) throws(AuditError) -> [[SQLiteValue]] {
        let (clause, arguments) = readinessClause(scope, extra: [Self.shadowSent, Self.shadowsRequest])
        let expressions = Dictionary(uniqueKeysWithValues: AuditRollupShadowSchema.key.map { ($0.column, $0.expression) })
        let grouping = Self.shadowGrouping.compactMap { expressions[$0] }
        return try query("""
            SELECT \(appKey), r.dialect, r.route, \(grouping.joined(separator: ", ")), count(*), max(s.request_id)
            \(Self.shadowJoin) \(clause) GROUP BY 1, 2, 3, \((4..<(4 + grouping.count)).map(String.init).joined(separator: ", "))
            """, arguments)
    }

    /// Adds rows of (app, dialect, route, ``shadowGrouping``…, comparisons, newest request id) to `figures`.
    private func foldShadow(_ rows: [[SQLiteValue]], into figures: inout [ReadinessKey: ReadinessShadowFigures]) {
        for row in rows {
            let flag = { (index: Int) in row[index].integerValue == 1 }
            let (disagreed, expected, openPush, accepted, gap, limited) = (flag(5), flag(6), flag(7), flag(8), flag(9), flag(10))
            let count = Int(row[11].integerValue ?? 0), newest = row[12].textValue ?? ""
            var route = figures[key(row), default: ReadinessShadowFigures()]
            route.shadowed += count
            if disagreed, !expected {
                route.disagreements += count
                let cell = ReadinessDisagreementCell(primary: row[3].textValue ?? "", shadow: row[4].textValue ?? "")
                let before = route.cells[cell]
                route.cells[cell] = ((before?.count ?? 0) + count, max(before?.example ?? "", newest))
            }
            if expected { route.expected += count }
            if openPush {
                let error = !accepted && !gap
                route.openPush = (route.openPush ?? ReadinessOpenPushFigures())
                    + ReadinessOpenPushFigures(calls: gap ? 0 : count, errors: error ? count : 0, rateLimited: limited ? count : 0, gaps: gap ? count : 0,
                                               example: error ? newest : nil)
            }
            figures[key(row)] = route
        }
    }

    /// Comparisons, disagreements (exactly one side 2xx) and their status-class pairs; a
    /// disagreement whose one refusal is OpenPush's population gap is expected and counted
    /// apart (``RouteReadiness/expectedDisagreements``).
    func readinessShadow(_ figures: [ReadinessKey: ReadinessShadowFigures], into routes: inout [ReadinessKey: RouteReadiness]) {
        for (key, route) in figures where routes[key] != nil {
            routes[key]?.shadowed = route.shadowed
            routes[key]?.disagreements = route.disagreements
            routes[key]?.expectedDisagreements = route.expected
            routes[key]?.disagreementCells = route.disagreementCells
        }
    }

    /// A comparison whose shadow was sent (not skipped for live traffic).
    static let shadowSent = "s.verdict <> '\(ShadowComparison.Verdict.shadowSkipped.rawValue)'"

    /// Comparisons (`s`) with their requests (`r`, joined by ``shadowsRequest``), the
    /// comparisons read first: SQLite takes `CROSS JOIN`'s left side as the outer loop, so it
    /// probes the log by request id once per comparison (a tenth of the requests in the bench)
    /// instead of scanning the whole log and probing the comparisons (3–4× the CPU over
    /// 200,000 requests). PostgreSQL plans it as the inner join it is.
    static let shadowJoin = "FROM shadow_comparisons s CROSS JOIN requests r"
    /// ``shadowJoin``'s condition.
    static let shadowsRequest = "r.request_id = s.request_id"
}
