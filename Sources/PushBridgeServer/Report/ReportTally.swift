/// The counts a report is made of, before they are shaped into its sections: requests per
/// outcome, status and route and per minute, the attempts' retry figures, and the finding
/// groups. Gathered by ``AuditReader/reportTally(_:fromRows:)`` from the per-minute rollups
/// for whole minutes and from the log's rows for the rest, so both sources add up alike.
struct ReportTally {
    /// A requests cell: outcome, upstream status (nil: none came back), dialect, route.
    struct Cell: Hashable {
        var outcome: String
        var status: Int64?
        var dialect, route: String
    }

    /// A finding group: dialect, route, folded field, kind.
    struct GroupKey: Hashable {
        var dialect, route, field, kind: String
    }

    /// A finding group's figures.
    struct Group {
        var requests: Int64 = 0, findings: Int64 = 0, indexed = false
        var firstAt = Int64.max, lastAt = Int64.min
        var exampleId = ""
        var apps: Set<String> = []
    }

    var requests: [Cell: Int] = [:]
    /// Requests per minute (`received_at / 60000`); when the report's buckets are whole hours,
    /// a whole hour's may be added at its first minute (it falls in one bucket all the same).
    var perMinute: [Int64: Int] = [:]
    /// Dropped-field findings per minute.
    var droppedPerMinute: [Int64: Int] = [:]
    var retried = 0, retries = 0, rateLimited = 0, waitMs = 0.0
    var groups: [GroupKey: Group] = [:]
    /// The first and last request received, Unix ms.
    var firstAt: Int64?, lastAt: Int64?
    /// The findings rollups' groups over the window's whole minutes and hours as read for the
    /// report, for the readiness it embeds (nil: none read, the rows alone were).
    var rolledFindings: RolledFindingGroups?

    /// Adds one cell's count (in one minute, when known: else ``perMinute`` is added to
    /// apart), with the first and last request it saw.
    mutating func add(_ cell: Cell, minute: Int64?, count: Int, first: Int64?, last: Int64?) {
        guard count != 0 else { return }
        requests[cell, default: 0] += count
        if let minute { perMinute[minute, default: 0] += count }
        if let first { firstAt = min(firstAt ?? first, first) }
        if let last { lastAt = max(lastAt ?? last, last) }
    }

    /// Adds one finding group's figures (in one minute, when known: else
    /// ``droppedPerMinute`` is added to apart), from one source app.
    mutating func add(_ key: GroupKey, minute: Int64?, app: String, requests: Int64, findings: Int64, indexed: Bool, first: Int64, last: Int64, example: String) {
        guard findings != 0 else { return }
        var group = groups[key] ?? Group()
        group.requests += requests
        group.findings += findings
        group.indexed = group.indexed || indexed
        group.firstAt = min(group.firstAt, first)
        group.lastAt = max(group.lastAt, last)
        if example > group.exampleId { group.exampleId = example }
        if !app.isEmpty { group.apps.insert(app) }
        groups[key] = group
        if key.kind == "dropped", let minute { droppedPerMinute[minute, default: 0] += Int(findings) }
    }

    /// Adds what a fold of the log's rows counted (the edges of a window, or an audit without rollups).
    mutating func add(_ fold: AuditRollupFold) {
        for (key, c) in fold.findings {
            add(GroupKey(dialect: key.dialect, route: key.route, field: key.field, kind: key.kind), minute: key.minute, app: key.sourceApp,
                requests: c.requests, findings: c.findings, indexed: c.indexed == 1, first: c.firstAt, last: c.lastAt, example: c.exampleId)
        }
    }
}
