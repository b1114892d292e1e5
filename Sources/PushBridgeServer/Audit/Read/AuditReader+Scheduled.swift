extension AuditReader {
    /// Scheduled requests the audit has not settled (see ``AuditScheduledRow``), oldest first.
    ///
    /// Reads the log's tables, not the `requests` view (whose `outcome` is computed, so a
    /// filter on it reads the whole log): the rows still `scheduled` from their partial index
    /// (``AuditScheduledIndexSchema``, which a start's completion leaves), and the starts still
    /// open from `scheduled_due`; each one's intent then by its request id (through the view,
    /// whose join is the file's own: by the intent's id since ``AuditOutcomeKeySchema``, by
    /// request id on a file a reader found unmigrated). So this stays cheap on an audit of
    /// millions of rows: it reads only the rows still open.
    public func unsettledScheduled() throws(AuditError) -> [AuditScheduledRow] {
        let rows = try query(Self.unsettledScheduledSQL)
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

    /// The requests ``unsettledScheduled()`` reads: request id, received time, outcome.
    static let unsettledScheduledSQL = """
        SELECT o.request_id, l.received_at, o.outcome FROM request_outcomes o JOIN request_log l ON l.request_id = o.request_id
        WHERE o.outcome = '\(AuditOutcome.scheduled.rawValue)'
        UNION
        SELECT r.request_id, r.received_at, r.outcome FROM scheduled_sends s JOIN requests r ON r.request_id = s.request_id
        WHERE s.state IN ('pending', 'sending')
        ORDER BY 2, 1
        """
}
