extension AuditReader {
    /// Scheduled requests the audit has not settled (see ``AuditScheduledRow``), oldest first.
    /// Both filters read an index (`requests_outcomes`, `scheduled_due`), so this stays cheap
    /// on a large audit: it reads only the rows still open.
    public func unsettledScheduled() throws(AuditError) -> [AuditScheduledRow] {
        let rows = try query("""
            SELECT request_id, received_at, outcome FROM requests WHERE outcome = 'scheduled'
            UNION
            SELECT r.request_id, r.received_at, r.outcome FROM scheduled_sends s JOIN requests r ON r.request_id = s.request_id
            WHERE s.state IN ('pending', 'sending')
            ORDER BY 2, 1
            """)
        var found: [AuditScheduledRow] = []
        for row in rows {
            guard let requestId = row[0].textValue else { continue }
            let sends = try query("SELECT ordinal, state, attempts FROM scheduled_sends WHERE request_id = ? ORDER BY ordinal", [.text(requestId)]).map { s in
                AuditScheduledRow.Send(ordinal: Int(s[0].integerValue ?? 0), state: s[1].textValue ?? "", attempts: UpstreamAttempt.parse(s[2].textValue))
            }
            found.append(AuditScheduledRow(requestId: requestId, receivedAt: row[1].integerValue ?? 0, outcome: row[2].textValue ?? "", sends: sends))
        }
        return found
    }
}
