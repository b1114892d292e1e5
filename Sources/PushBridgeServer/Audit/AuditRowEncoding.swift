import PushBridgeCore

/// Turns entries and completions into the SQLite values the writer binds, in the column
/// order of ``AuditStatements``. Runs on the caller's task, off the writer thread.
enum AuditRowEncoding {
    static func requestRow(_ entry: AuditEntry, _ completion: AuditCompletion?, bodyLimit: Int, instance: String) -> [SQLiteValue] {
        [
            .text(entry.requestId), .integer(entry.receivedAt), integer(completion?.finishedAt), text(stripQuery(entry.path)),
            text(entry.dialect?.rawValue), text(entry.route?.rawValue ?? entry.unhandledRoute), text(entry.sourceApp), text(entry.targetApp),
            text(entry.activityType), text(entry.activityId), text(entry.event), text(entry.keyFingerprint),
            text(entry.inboundBody), text(entry.translated), .integer(Int64(entry.findings.count)),
        ] + AuditCompletionColumns(completion, outcome: completion?.outcome ?? .pending, bodyLimit: bodyLimit).all.dropFirst().map(\.value) + [text(entry.appName), .text(instance)]
    }

    static func findingRows(_ entry: AuditEntry, instance: String) -> [[SQLiteValue]] {
        entry.findings.enumerated().map { ordinal, finding in
            [
                .text(entry.requestId), .integer(Int64(ordinal)), .text(entry.dialect?.rawValue ?? ""), .text(entry.route?.rawValue ?? ""),
                text(entry.sourceApp), .integer(entry.receivedAt), .text(finding.field), .text(finding.kind.rawValue),
                .text(finding.severity.rawValue), .text(finding.message), .text(instance),
            ]
        }
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
