import PushBridgeCore

extension AuditStore {
    /// Completes a row after the caller was answered (a scheduled start sent at its time):
    /// everything ``finish(_:_:)`` writes except the caller's status and body, which stay as
    /// answered. Returns once committed.
    public func completeLater(_ requestId: String, _ completion: AuditCompletion) async throws {
        let v = AuditRowEncoding.completionValues(completion, outcome: completion.outcome, bodyLimit: configuration.bodyLimit)
        let sql = "UPDATE requests SET finished_at = ?, upstream_status = ?, upstream_body = ?, upstream_latency_ms = ?, attempts = ?, outcome = ?, error_message = ? WHERE request_id = ?"
        try await submit(.update(requestId: requestId, sql: sql, values: [v[0], v[1], v[2], v[3], v[4], v[7], v[8], .text(requestId)]))
    }
}

extension AuditStore {
    /// Mirrors a scheduled start into the audit's `scheduled_sends` (for reports): its time,
    /// state and the redacted request; the real request lives only in the scheduler file.
    public func recordScheduled(requestId: String, ordinal: Int, sendAt: Int64, targetApp: String, redactedRequest: String, createdAt: Int64) async throws {
        try await submit(.insertOther(sql: "INSERT OR REPLACE INTO scheduled_sends (request_id, ordinal, send_at, state, target_app, request, created_at) VALUES (?, ?, ?, 'pending', ?, ?, ?)",
                                      values: [.text(requestId), .integer(Int64(ordinal)), .integer(sendAt), .text(targetApp), .text(redactedRequest), .integer(createdAt)]))
    }

    /// Records a scheduled start's new state (`sending`, `sent`, `failed`, `cancelled`) in `scheduled_sends`.
    public func updateScheduled(requestId: String, ordinal: Int, state: String, at: Int64, status: Int? = nil, attempts: [AuditAttempt] = [], error: String? = nil) async throws {
        let attemptsJSON: SQLiteValue = attempts.isEmpty ? .null : .text(JSONWriter.string(.array(attempts.map(\.json))))
        let sent: SQLiteValue = state == "sent" ? .integer(at) : .null
        try await submit(.insertOther(sql: """
            UPDATE scheduled_sends SET state = ?, claimed_at = CASE WHEN ? = 'sending' THEN ? ELSE claimed_at END, sent_at = coalesce(?, sent_at),
            upstream_status = coalesce(?, upstream_status), attempts = coalesce(?, attempts), error_message = coalesce(?, error_message)
            WHERE request_id = ? AND ordinal = ?
            """, values: [.text(state), .text(state), .integer(at), sent, status.map { .integer(Int64($0)) } ?? .null, attemptsJSON,
                          error.map(SQLiteValue.text) ?? .null, .text(requestId), .integer(Int64(ordinal))]))
    }
}
