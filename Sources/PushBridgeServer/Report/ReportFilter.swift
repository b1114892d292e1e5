import PushBridgeCore

/// Which audit rows a report covers. Every bound is optional; times are Unix milliseconds.
public struct ReportFilter: Sendable, Equatable {
    /// Received at or after, Unix ms.
    public var since: Int64?
    /// Received before, Unix ms.
    public var until: Int64?
    /// Source app.
    public var app: String?
    /// Dialect (`onesignal`, `pushwoosh`, `buzzkit`).
    public var dialect: String?
    /// Route kind (`start`, `update`, …).
    public var route: String?

    /// A filter.
    public init(since: Int64? = nil, until: Int64? = nil, app: String? = nil, dialect: String? = nil, route: String? = nil) {
        self.since = since
        self.until = until
        self.app = app
        self.dialect = dialect
        self.route = route
    }

    /// `WHERE …` (or "") and its arguments, for a table with `received_at`, `source_app`,
    /// `dialect` and `route` columns (`requests`, `findings`), or `compared_at` with `time`.
    func whereClause(time: String = "received_at", extra: [String] = []) -> (String, [SQLiteValue]) {
        var conditions = extra
        var arguments: [SQLiteValue] = []
        if let dialect { conditions.append("dialect = ?"); arguments.append(.text(dialect)) }
        if let route { conditions.append("route = ?"); arguments.append(.text(route)) }
        if let since { conditions.append("\(time) >= ?"); arguments.append(.integer(since)) }
        if let until { conditions.append("\(time) < ?"); arguments.append(.integer(until)) }
        if let app { conditions.append("source_app = ?"); arguments.append(.text(app)) }
        return (conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "), arguments)
    }

    /// Parses `--since`/`--until` values (see ``TimeArgument``). Returns Unix ms, nil when invalid.
    public static func parseTime(_ text: String) -> Int64? { TimeArgument.milliseconds(text) }

    /// The filter as `key=value` words for a report header, "" when it has none.
    public var summary: String {
        var parts: [String] = []
        if let since { parts.append("since=" + RFC3339.format(milliseconds: since)) }
        if let until { parts.append("until=" + RFC3339.format(milliseconds: until)) }
        if let app { parts.append("app=" + app) }
        if let dialect { parts.append("dialect=" + dialect) }
        if let route { parts.append("route=" + route) }
        return parts.joined(separator: " ")
    }
}

/// Folds array indices in a finding's field path: `notifications[0].x` → `notifications[].x`.
public enum FieldPath {
    /// The path with every `[digits]` replaced by `[]`.
    public static func folded(_ path: String) -> String {
        guard path.contains("[") else { return path }
        var out = ""
        var index = path.startIndex
        while index < path.endIndex {
            let character = path[index]
            out.append(character)
            index = path.index(after: index)
            if character == "[" {
                var end = index
                while end < path.endIndex, path[end].isASCII, path[end].isNumber { end = path.index(after: end) }
                if end > index, end < path.endIndex, path[end] == "]" { index = end }
            }
        }
        return out
    }
}
