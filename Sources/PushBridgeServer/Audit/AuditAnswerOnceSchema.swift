/// SQLite audit migration 16 (issue 30, bytes written per request): an answer the caller got
/// exactly as upstream sent it (a legacy provider's answer passed on byte for byte: observe,
/// a shadow whose primary is legacy, an activity the legacy side holds) is stored once, in
/// `upstream_body`; its outcome row's `response_body` then holds ``sameAsUpstream``, and the
/// `requests` view reads it back as the upstream body, so every reader reads what it read
/// before. Nothing else changes: rows written before keep their text, and PostgreSQL stores
/// both bodies as it did.
///
/// The migration re-creates the view with that one column changed, and its `INSTEAD OF`
/// triggers (dropping a view drops them), as ``AuditLogSchema`` made them.
enum AuditAnswerOnceSchema {
    /// The migration's number and name in `pushbridge_migrations`.
    static let sqliteNumber = 16
    static let name = "an answer passed on as it came is stored once"

    /// What `request_outcomes.response_body` holds for "the upstream body, as it came": an
    /// empty blob. The writer binds every body as text, so no answer is one.
    static let sameAsUpstream = SQLiteValue.blob([])

    /// The view's `response_body`: the upstream body where the row says so.
    static let responseBody = "CASE WHEN o.response_body = X'' THEN o.upstream_body ELSE o.response_body END AS response_body"

    /// `requests` as ``AuditLogSchema/view`` makes it, but for ``responseBody``.
    static let view = AuditLogSchema.view.replacingOccurrences(of: "o.response_body AS response_body", with: responseBody)

    /// The whole migration.
    static let sql = "DROP VIEW requests;\n" + view + AuditLogSchema.triggers

    /// Whether an outcome row with these bodies and outcome stores its answer once: the
    /// caller's body is upstream's, text for text. Never for a `scheduled` row, whose upstream
    /// columns a later completion fills while its answer stays as it was
    /// (``AuditStatement/completeScheduled(_:_:onlyWhileScheduled:bodyLimit:)``).
    static func storesOnce(upstream: SQLiteValue, response: SQLiteValue, outcome: SQLiteValue) -> Bool {
        guard case .text(let answer) = response, case .text(let sent) = upstream, outcome != .text(AuditOutcome.scheduled.rawValue) else { return false }
        return answer == sent
    }
}
