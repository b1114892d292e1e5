/// The statements that delete audit rows past a cutoff, shared by `pushbridge audit prune`
/// (on its own connection) and the running proxy's ``AuditRetention`` (on the writer's).
enum AuditPruning {
    /// The oldest deletable rows received before `?1`, at most `?2`: rows still `pending` or
    /// `scheduled` are kept. Reads the index on time (PostgreSQL's `request_log_time`, or a
    /// file not migrated to ``AuditLogMinutesSchema`` yet).
    static let candidatesSQL = """
        SELECT request_id FROM requests WHERE received_at < ? AND outcome NOT IN ('pending', 'scheduled')
        ORDER BY received_at LIMIT ?
        """

    /// ``candidatesSQL`` on a log read by its minutes (``AuditLogMinutesSchema``), with the same
    /// two values: the rows from the log's start through the highest id the cutoff's minute and
    /// those before can hold (``AuditLogMinutesSchema/upperBound(_:)``), in id order (the log's
    /// own order, no sort): every batch deletes rows before the cutoff until none is left, the
    /// same rows in the end, taken oldest id first.
    static let candidatesByMinutesSQL = """
        SELECT request_id FROM requests WHERE received_at < ?1 AND outcome NOT IN ('pending', 'scheduled')
        AND id <= \(AuditLogMinutesSchema.upperBound("(?1 - 1) / 60000"))
        ORDER BY id LIMIT ?2
        """

    /// Deletes one row (bound to its request id) unless it became pending or scheduled.
    static let deleteRequestSQL = "DELETE FROM requests WHERE request_id = ? AND outcome NOT IN ('pending', 'scheduled')"

    /// What belongs to a deleted row, each bound to its request id.
    static let deleteDependentsSQL = [
        "DELETE FROM findings WHERE request_id = ?",
        "DELETE FROM shadow_comparisons WHERE request_id = ?",
        "DELETE FROM scheduled_sends WHERE request_id = ?",
    ]

    /// On an audit shaped as a log (``AuditLogSchema``): the outcome row, unless it is
    /// `scheduled` (a pending request has none, so it is kept too), then its intent. The
    /// outcome row is found by its intent's id (``AuditOutcomeKeySchema``), or by its own
    /// `request_id` index on a file not migrated to it yet (``unkeyedDeleteOutcomeSQL``).
    static let deleteOutcomeSQL = "DELETE FROM request_outcomes WHERE \(AuditOutcomeKeySchema.outcomeOfRequest) AND outcome <> 'scheduled'"
    static let unkeyedDeleteOutcomeSQL = "DELETE FROM request_outcomes WHERE request_id = ? AND outcome <> 'scheduled'"
    static let deleteIntentSQL = "DELETE FROM request_log WHERE request_id = ?"

    /// Deletes the rows `requestIds` and what belongs to them, inside the caller's transaction;
    /// returns how many rows went.
    static func delete(_ requestIds: [String], in database: any AuditSQL) throws -> Int {
        let log = try database.isAuditLog()
        let deleteOutcome = try log && !database.outcomesKeyedByIntent() ? unkeyedDeleteOutcomeSQL : deleteOutcomeSQL
        var deleted = 0
        var lastMinute: SQLiteValue = .null
        if !requestIds.isEmpty {
            // Out of the rollups first, exactly the rows the deletes below remove.
            let marks = Array(repeating: "?", count: requestIds.count).joined(separator: ", ")
            try AuditRollupRows.subtract(where: "request_id IN (\(marks)) AND outcome NOT IN ('pending', 'scheduled')", requestIds.map { .text($0) }, in: database)
            if log, try AuditLogMinutesSchema.exist(in: database) {
                lastMinute = try database.select("SELECT max(received_at) / 60000 FROM request_log WHERE request_id IN (\(marks))", requestIds.map { .text($0) }).first?.first ?? .null
            }
        }
        for id in requestIds {
            if log {
                guard try database.change(deleteOutcome, [.text(id)]) == 1 else { continue }
                try database.change(deleteIntentSQL, [.text(id)])
            } else {
                guard try database.change(deleteRequestSQL, [.text(id)]) == 1 else { continue }
            }
            deleted += 1
            for sql in deleteDependentsSQL { try database.change(sql, [.text(id)]) }
        }
        // The minutes left without a row go too, so `request_log_minutes` shrinks with the log.
        if lastMinute != .null { try database.change(AuditLogMinutesSchema.deleteEmptySQL, [lastMinute]) }
        return deleted
    }
}
