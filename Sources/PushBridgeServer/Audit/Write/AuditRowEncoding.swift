import PushBridgeCore

/// Turns entries and completions into the SQLite values the writer binds, each by its
/// column (``AuditRequestColumn``). Runs on the caller's task, off the writer thread.
enum AuditRowEncoding {
    /// Every column in order: `allCases` made once, not an array per row.
    private static let columns = AuditRequestColumn.allCases

    /// The row's values in ``AuditRequestColumn``'s order (``AuditStatements/requestColumns``).
    static func requestRow(_ entry: AuditEntry, _ completion: AuditCompletion?, bodyLimit: Int, instance: String) -> [SQLiteValue] {
        let completed = AuditCompletionColumns(completion, outcome: completion?.outcome ?? .pending, bodyLimit: bodyLimit)
        return columns.map { column -> SQLiteValue in
            switch column {
            case .requestId: .text(entry.requestId)
            case .receivedAt: .integer(entry.receivedAt)
            case .path: text(stripQuery(entry.path))
            case .dialect: text(entry.dialect?.rawValue)
            case .route: text(entry.route?.rawValue ?? entry.unhandledRoute)
            case .sourceApp: text(entry.sourceApp)
            case .targetApp: text(entry.targetApp)
            case .activityType: text(entry.activityType)
            case .activityId: text(entry.activityId)
            case .event: text(entry.event)
            case .keyFingerprint: text(entry.keyFingerprint)
            case .inboundBody: text(entry.inboundBody)
            case .translated: text(entry.translated)
            case .findingCount: .integer(Int64(entry.findings.count))
            case .appName: text(entry.appName)
            case .instanceName: .text(instance)
            case .finishedAt, .upstreamStatus, .upstreamBody, .upstreamLatencyMs, .attempts, .responseStatus, .responseBody, .outcome, .errorMessage:
                completed[column]
            }
        }
    }

    /// The entry's findings as `findings` rows (``AuditStatements/findingColumns``' order): what
    /// the rollups fold and the PostgreSQL writer inserts; the SQLite writer stores them inline
    /// (``findingList(_:)``).
    static func findingRows(_ entry: AuditEntry, instance: String) -> [[SQLiteValue]] {
        entry.findings.enumerated().map { ordinal, finding in
            [
                .text(entry.requestId), .integer(Int64(ordinal)), .text(entry.dialect?.rawValue ?? ""), .text(entry.route?.rawValue ?? ""),
                text(entry.sourceApp), .integer(entry.receivedAt), .text(finding.field), .text(finding.kind.rawValue),
                .text(finding.severity.rawValue), .text(finding.message), .text(instance),
            ]
        }
    }

    /// Where `field`, `kind`, `severity` and `message` are in a row of ``findingRows(_:instance:)``.
    private static let listedPositions = ["field", "kind", "severity", "message"].compactMap { AuditStatements.findingColumns.firstIndex(of: $0) }

    /// The value of an intent's ``AuditFindingsInlineSchema/column``: `rows` (``findingRows(_:instance:)``)
    /// as one JSON array of `[field, kind, severity, message]`, in order; NULL for none.
    ///
    /// The bytes are one buffer reserved for the whole list (``findingListCapacity(_:)``). A
    /// guess of 96 bytes per finding grew twice more for a OneSignal start's three findings,
    /// whose messages are longer (`docs/benchmarks.md`, "Allocations per request, eighth pass").
    /// Indexed loops here and in ``findingListCapacity(_:)``, not `for … in`: unoptimized (the
    /// debug build `AllocationGuardTests` counts), each step of an array's iterator allocates a
    /// frame for its element's read (five per finding, on the writer's thread).
    static func findingList(_ rows: [[SQLiteValue]]) -> SQLiteValue {
        guard !rows.isEmpty else { return .null }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(findingListCapacity(rows))
        bytes.append(UInt8(ascii: "["))
        let positions = listedPositions
        var r = 0
        while r < rows.count {
            if r > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "["))
            var p = 0
            while p < positions.count {
                if p > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(listed(rows[r], positions[p]), into: &bytes)
                p += 1
            }
            bytes.append(UInt8(ascii: "]"))
            r += 1
        }
        bytes.append(UInt8(ascii: "]"))
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    /// The text of `row`'s column `column` as ``findingList(_:)`` lists it ("" when absent).
    private static func listed(_ row: [SQLiteValue], _ column: Int) -> String {
        row.indices.contains(column) ? row[column].textValue ?? "" : ""
    }

    /// Room for ``findingList(_:)`` of `rows`: the listed texts' bytes plus a quarter for their
    /// escapes, their quotes and the punctuation. A text with more to escape (a control byte
    /// is six) only grows the buffer, as before.
    static func findingListCapacity(_ rows: [[SQLiteValue]]) -> Int {
        let positions = listedPositions
        var capacity = 2
        var r = 0
        while r < rows.count {
            capacity += 3
            var p = 0
            while p < positions.count {
                let count = listed(rows[r], positions[p]).utf8.count
                capacity += count + count / 4 + 3
                p += 1
            }
            r += 1
        }
        return capacity
    }

    /// `text` cut to at most `limit` UTF-8 bytes at a character boundary, marked when cut.
    static func truncate(_ text: String?, to limit: Int) -> String? {
        guard let text, text.utf8.count > limit else { return text }
        return text.utf8Prefix(maxBytes: limit) + "…[truncated: \(text.utf8.count) bytes]"
    }

    /// The path without its query string, which may carry credentials.
    static func stripQuery(_ path: String?) -> String? {
        guard let path, let mark = path.firstIndex(of: "?") else { return path }
        return String(path[..<mark])
    }

    private static func text(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
    private static func integer(_ value: Int64?) -> SQLiteValue { value.map(SQLiteValue.integer) ?? .null }
}
