/// A time window split for the rollups: the whole hours inside it (read from the hourly
/// rollups, ``AuditRollupHourSchema``), the whole minutes around them (the per-minute
/// rollups) and its partial minutes at either edge (read from the log's rows), so that
/// figures added from all three are exactly the rows'. A window inside one minute is all edge.
struct RollupWindow {
    /// A range of whole minutes or hours `[from, to)`; nil: unbounded.
    typealias Range = (from: Int64?, to: Int64?)

    /// The whole minutes `[from, to)` (`received_at / 60000`; nil: unbounded), or nil when none.
    var minutes: Range?
    /// The whole hours inside ``minutes`` (`received_at / 3600000`), or nil when none (or not
    /// split: `hourly` false).
    var hours: Range?
    /// The whole minutes outside ``hours``: all of ``minutes`` without hours, else at most one
    /// range before them and one after.
    var minuteRanges: [Range] = []
    /// The partial minutes, Unix ms `[since, until)`.
    var edges: [(since: Int64?, until: Int64?)] = []

    /// The split of `[since, until)` (either open); with `hourly`, its whole hours apart.
    init(since: Int64?, until: Int64?, hourly: Bool = true) {
        let first = since.map { ($0 + 59_999) / 60_000 }, last = until.map { $0 / 60_000 }
        if let first, let last, first >= last {
            edges = [(since, until)]
            return
        }
        minutes = (first, last)
        if let since, let first, since < first * 60_000 { edges.append((since, first * 60_000)) }
        if let until, let last, last * 60_000 < until { edges.append((last * 60_000, until)) }
        let perHour = AuditRollupHourSchema.minutesPerHour
        let firstHour = first.map { ($0 + perHour - 1) / perHour }, lastHour = last.map { $0 / perHour }
        var someHour = hourly
        if let firstHour, let lastHour, firstHour >= lastHour { someHour = false }
        if someHour {
            hours = (firstHour, lastHour)
            if let first, let firstHour, first < firstHour * perHour { minuteRanges.append((first, firstHour * perHour)) }
            if let last, let lastHour, lastHour * perHour < last { minuteRanges.append((lastHour * perHour, last)) }
        } else {
            minuteRanges = [(first, last)]
        }
    }

    /// The time, Unix ms `[since, until)`, of the rollup row whose `minute` (as
    /// ``AuditReader/rollupSource(_:_:)`` reads it: an hourly row's is its hour's first) is given.
    func span(ofMinute minute: Int64) -> (since: Int64, until: Int64) {
        let hour = minute / AuditRollupHourSchema.minutesPerHour
        if let hours, hours.from.map({ hour >= $0 }) ?? true, hours.to.map({ hour < $0 }) ?? true { return (hour * 3_600_000, (hour + 1) * 3_600_000) }
        return (minute * 60_000, (minute + 1) * 60_000)
    }
}

/// Which rollup a query reads: requests or findings.
enum RollupTable {
    case requests, findings

    /// The minute table.
    var minuteTable: String { self == .requests ? "rollup_requests" : "rollup_findings" }
    /// The hourly table.
    var hourTable: String { self == .requests ? AuditRollupHourSchema.requestsTable : AuditRollupHourSchema.findingsTable }
    /// Every column but the minute (or hour), in both tables.
    var columns: [String] {
        self == .requests ? Array(AuditRollupSchema.requestKey.dropFirst()) + AuditRollupSchema.requestCounters
            : Array(AuditRollupSchema.findingKey.dropFirst()) + AuditRollupSchema.findingCounters
    }
}

extension AuditReader {
    /// The app a rollup row belongs to: its configured name, else its source app id.
    static let rollupAppKey = "CASE WHEN app_name <> '' THEN app_name ELSE source_app END"

    /// What a query over `window`'s whole minutes reads `table` from, and the conditions on
    /// the minute that go with it: the minute table with the minutes' bounds when the window
    /// has no whole hour, else one relation named as the minute table adding up its whole
    /// hours from the hourly table (each row's `minute` its hour's first) and the minutes
    /// around them from the minute table. Every other column is the same in both.
    func rollupSource(_ table: RollupTable, _ window: RollupWindow) -> (from: String, conditions: [String]) {
        func bounds(_ column: String, _ range: RollupWindow.Range) -> [String] {
            (range.from.map { ["\(column) >= \($0)"] } ?? []) + (range.to.map { ["\(column) < \($0)"] } ?? [])
        }
        guard let hours = window.hours else { return (table.minuteTable, window.minutes.map { bounds("minute", $0) } ?? []) }
        let columns = table.columns.joined(separator: ", ")
        func select(_ from: String, _ minute: String, _ conditions: [String]) -> String {
            "SELECT \(minute) AS minute, \(columns) FROM \(from)" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        }
        let selects = [select(table.hourTable, "hour * \(AuditRollupHourSchema.minutesPerHour)", bounds("hour", hours))]
            + window.minuteRanges.map { select(table.minuteTable, "minute", bounds("minute", $0)) }
        return ("(" + selects.joined(separator: " UNION ALL ") + ") AS \(table.minuteTable)", [])
    }

    /// A readiness figure over `scope`'s window: the whole minutes and hours from the rollups
    /// (`rollups`, given the window's split), the partial edge minutes from the rows (`rows`,
    /// given the scope narrowed to an edge), added with `add`; all from the rows in an audit
    /// without rollups.
    func fromRollups<T>(_ scope: ReadinessScope, _ zero: T, _ add: (T, T) -> T, rollups: (RollupWindow) throws(AuditError) -> T,
                        rows: (ReadinessScope) throws(AuditError) -> T) throws(AuditError) -> T {
        guard hasRollups else { return try rows(scope) }
        let window = RollupWindow(since: scope.filter.since, until: scope.filter.until)
        var total = zero
        if window.minutes != nil { total = add(total, try rollups(window)) }
        for edge in window.edges {
            var narrowed = scope
            (narrowed.filter.since, narrowed.filter.until) = (edge.since, edge.until)
            total = add(total, try rows(narrowed))
        }
        return total
    }

    /// ``fromRollups(_:_:_:rollups:rows:)`` of figures per key, two sources' figures of a key added with `add`.
    func fromRollups<Key: Hashable, Value>(_ scope: ReadinessScope, merging add: @escaping (Value, Value) -> Value,
                                           rollups: (RollupWindow) throws(AuditError) -> [Key: Value],
                                           rows: (ReadinessScope) throws(AuditError) -> [Key: Value]) throws(AuditError) -> [Key: Value] {
        try fromRollups(scope, [:], { $0.merging($1, uniquingKeysWith: add) }, rollups: rollups, rows: rows)
    }

    /// ``readinessClause``'s conditions on `table`'s rollup over `window` (``rollupSource(_:_:)``,
    /// returned as `from`): rows with a dialect and route, not `unhandled`, admitted (or not;
    /// nil: both), the filter's dialect, route and app. On `rollup_findings`, neither of the
    /// first two (findings are only ever of admitted, handled requests: that table has neither column).
    func readinessRollupClause(_ scope: ReadinessScope, _ table: RollupTable, _ window: RollupWindow, admitted: Bool? = true,
                               extra: [String] = []) -> (from: String, clause: String, arguments: [SQLiteValue]) {
        let findings = table == .findings
        let source = rollupSource(table, window)
        let conditions = ["dialect <> ''", "route <> ''"] + (findings ? [] : ["outcome <> 'unhandled'"])
            + (findings ? [] : admitted.map { ["admitted = \($0 ? 1 : 0)"] } ?? []) + extra + source.conditions
        let (narrowing, arguments) = readinessFilter(scope, prefix: "", appKey: Self.rollupAppKey)
        return (source.from, "WHERE " + (conditions + narrowing).joined(separator: " AND "), arguments)
    }
}
