/// A time window split for the per-minute rollups: the whole minutes inside it (read from the
/// rollups) and its partial minutes at either edge (read from the log's rows), so that figures
/// added from both are exactly the rows'. A window inside one minute is all edge.
struct RollupWindow {
    /// The whole minutes `[from, to)` (`received_at / 60000`; nil: unbounded), or nil when none.
    var minutes: (from: Int64?, to: Int64?)?
    /// The partial minutes, Unix ms `[since, until)`.
    var edges: [(since: Int64?, until: Int64?)] = []

    /// The split of `[since, until)` (either open).
    init(since: Int64?, until: Int64?) {
        let first = since.map { ($0 + 59_999) / 60_000 }, last = until.map { $0 / 60_000 }
        if let first, let last, first >= last {
            edges = [(since, until)]
            return
        }
        minutes = (first, last)
        if let since, let first, since < first * 60_000 { edges.append((since, first * 60_000)) }
        if let until, let last, last * 60_000 < until { edges.append((last * 60_000, until)) }
    }

}

extension AuditReader {
    /// The app a rollup row belongs to: its configured name, else its source app id.
    static let rollupAppKey = "CASE WHEN app_name <> '' THEN app_name ELSE source_app END"

    /// A readiness figure over `scope`'s window: the whole minutes from the rollups
    /// (`rollups`, given the minutes), the partial edge minutes from the rows (`rows`, given
    /// the scope narrowed to an edge), added with `add`; all from the rows in an audit without
    /// rollups.
    func fromRollups<T>(_ scope: ReadinessScope, _ zero: T, _ add: (T, T) -> T, rollups: ((from: Int64?, to: Int64?)) throws(AuditError) -> T,
                        rows: (ReadinessScope) throws(AuditError) -> T) throws(AuditError) -> T {
        guard hasRollups else { return try rows(scope) }
        let window = RollupWindow(since: scope.filter.since, until: scope.filter.until)
        var total = zero
        if let minutes = window.minutes { total = add(total, try rollups(minutes)) }
        for edge in window.edges {
            var narrowed = scope
            (narrowed.filter.since, narrowed.filter.until) = (edge.since, edge.until)
            total = add(total, try rows(narrowed))
        }
        return total
    }

    /// ``fromRollups(_:_:_:rollups:rows:)`` of figures per key, two sources' figures of a key added with `add`.
    func fromRollups<Key: Hashable, Value>(_ scope: ReadinessScope, merging add: @escaping (Value, Value) -> Value,
                                           rollups: ((from: Int64?, to: Int64?)) throws(AuditError) -> [Key: Value],
                                           rows: (ReadinessScope) throws(AuditError) -> [Key: Value]) throws(AuditError) -> [Key: Value] {
        try fromRollups(scope, [:], { $0.merging($1, uniquingKeysWith: add) }, rollups: rollups, rows: rows)
    }

    /// ``readinessClause``'s conditions on `rollup_requests` over `minutes`: rows with a
    /// dialect and route, not `unhandled`, admitted (or not; nil: both), the filter's dialect,
    /// route and app. With `findings`, on `rollup_findings` (findings are only ever of
    /// admitted, handled requests: that table has neither column).
    func readinessRollupClause(_ scope: ReadinessScope, _ minutes: (from: Int64?, to: Int64?), admitted: Bool? = true, extra: [String] = [],
                               findings: Bool = false) -> (String, [SQLiteValue]) {
        var conditions = ["dialect <> ''", "route <> ''"] + (findings ? [] : ["outcome <> 'unhandled'"])
            + (findings ? [] : admitted.map { ["admitted = \($0 ? 1 : 0)"] } ?? []) + extra
        if let from = minutes.from { conditions.append("minute >= \(from)") }
        if let to = minutes.to { conditions.append("minute < \(to)") }
        let (narrowing, arguments) = readinessFilter(scope, prefix: "", appKey: Self.rollupAppKey)
        return ("WHERE " + (conditions + narrowing).joined(separator: " AND "), arguments)
    }
}
