import PushBridgeCore

/// The activities in flight as `pushbridge activities` prints them and `GET /admin/activities`
/// serves them: id, app, provider, dialect, started, last update, ended and until when it can
/// still be reached. What callers sent (ids, app names) is data: escaped for a terminal in
/// text, through ``CSVCell`` in CSV.
public enum ActivityListing {
    /// The output formats.
    public enum Format: String, Sendable, CaseIterable {
        /// Aligned columns for a terminal.
        case text
        /// `{"activities": [...], "count"}`.
        case json
        /// A header row and one row per activity.
        case csv
    }

    /// The columns, in order (also the CSV header).
    public static let columns = ["activity_id", "app", "provider", "dialect", "started_at", "last_update_at", "ended_at", "reachable_until"]

    /// `records` in `format`.
    public static func render(_ records: [ActivityRecord], as format: Format) -> String {
        switch format {
        case .text: text(records)
        case .json: TerminalText.json(JSONWriter.pretty(json(records))) + "\n"
        case .csv: CSVCell.document([columns] + records.map(cells))
        }
    }

    /// The JSON value: `{"activities": [{"activity_id", "app", "provider", "dialect",
    /// "started_at", "last_update_at", "ended_at", "reachable_until"}], "count"}`, times as
    /// Unix milliseconds (null when not yet).
    public static func json(_ records: [ActivityRecord]) -> JSONValue {
        let time = { (t: Int64?) in t.map { JSONValue.int($0) } ?? .null }
        return .object([
            "activities": .array(records.map { r in
                .object(["activity_id": .string(r.activityId), "app": .string(r.app), "provider": .string(r.holder.rawValue), "dialect": .string(r.dialect.rawValue),
                         "started_at": .int(r.startedAt), "last_update_at": time(r.lastUpdateAt), "ended_at": time(r.endedAt),
                         "reachable_until": .int(r.reachableUntil)])
            }),
            "count": .int(Int64(records.count)),
        ])
    }

    /// One record's cells: times in RFC 3339, empty when not yet.
    static func cells(_ r: ActivityRecord) -> [String] {
        let time = { (t: Int64?) in t.map { RFC3339.format(milliseconds: $0) } ?? "" }
        return [r.activityId, r.app, r.holder.rawValue, r.dialect.rawValue, time(r.startedAt), time(r.lastUpdateAt), time(r.endedAt), time(r.reachableUntil)]
    }

    /// Aligned columns, every cell escaped for a terminal, then the count.
    static func text(_ records: [ActivityRecord]) -> String {
        let header = ["ACTIVITY", "APP", "PROVIDER", "DIALECT", "STARTED", "LAST UPDATE", "ENDED", "REACHABLE UNTIL"]
        let rows = [header] + records.map { cells($0).map { $0.isEmpty ? "-" : TerminalText.escape($0) } }
        var widths = Array(repeating: 0, count: header.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        var out = ""
        for row in rows {
            out += row.enumerated().map { index, cell in index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count) }
                .joined(separator: "  ") + "\n"
        }
        return out + "\(ReportFormatting.count(records.count, "activity", plural: "activities")) in flight\n"
    }
}
