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
