extension AuditStore {
    /// Completes a row that is still `scheduled` (start-up reconciliation with the scheduler's
    /// file): what ``completeLater(_:_:)`` writes, but only while the row says `scheduled`, so
    /// it never overwrites a completion written meanwhile. Returns false when the row was no
    /// longer `scheduled` (or is gone); returns once committed.
    public func settleScheduled(_ requestId: String, _ completion: AuditCompletion) async throws -> Bool {
        let v = AuditRowEncoding.completionValues(completion, outcome: completion.outcome, bodyLimit: configuration.bodyLimit)
        let sql = """
            UPDATE requests SET finished_at = ?, upstream_status = ?, upstream_body = ?, upstream_latency_ms = ?, attempts = ?, outcome = ?, error_message = ?
            WHERE request_id = ? AND outcome = 'scheduled'
            """
        do {
            try await submit(.update(requestId: requestId, sql: sql, values: [v[0], v[1], v[2], v[3], v[4], v[7], v[8], .text(requestId)]))
            return true
        } catch AuditError.unknownRequest {
            return false
        }
    }
}
