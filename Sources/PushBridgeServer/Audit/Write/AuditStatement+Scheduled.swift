import PushBridgeCore

/// The audit's side of a scheduled start's life: its `scheduled_sends` mirror and the
/// completion of its request's row. ``ScheduledStartLifecycle`` is their only user.
extension AuditStatement {
    /// The mirror row of a newly stored start: its time, `pending`, and the redacted request
    /// (the real one lives only in the scheduler's store), and the instance that took it.
    static func mirrorScheduled(requestId: String, ordinal: Int, sendAt: Int64, targetApp: String, redactedRequest: String, createdAt: Int64,
                                instance: String) -> AuditStatement {
        .insertOrReplace("mirror scheduled start", table: "scheduled_sends", key: ["request_id", "ordinal"], [
            ("request_id", .text(requestId)), ("ordinal", .integer(Int64(ordinal))), ("send_at", .integer(sendAt)),
            ("state", .text(ScheduledStart.State.pending.rawValue)), ("target_app", .text(targetApp)),
            ("request", .text(redactedRequest)), ("created_at", .integer(createdAt)), ("instance_name", .text(instance)),
        ])
    }

    /// A start's new state in its mirror row: `claimed_at` when it becomes `sending`,
    /// `sent_at` when `sent`; the status, attempts and error only when given.
    static func mirrorState(requestId: String, ordinal: Int, state: ScheduledStart.State, at: Int64, status: Int? = nil,
                            attempts: [UpstreamAttempt] = [], error: String? = nil) -> AuditStatement {
        var columns: [(column: String, value: SQLiteValue)] = [("state", .text(state.rawValue))]
        if state == .sending { columns.append(("claimed_at", .integer(at))) }
        if state == .sent { columns.append(("sent_at", .integer(at))) }
        if let status { columns.append(("upstream_status", .integer(Int64(status)))) }
        if !attempts.isEmpty { columns.append(("attempts", .text(JSONWriter.string(.array(attempts.map(\.json)))))) }
        if let error { columns.append(("error_message", .text(error))) }
        return .update("record scheduled start state", table: "scheduled_sends", set: columns, where: "request_id = ? AND ordinal = ?",
                       [.text(requestId), .integer(Int64(ordinal))], requestId: nil)
    }

    /// The mirror rows of starts a scheduler claimed at `at`, all `sending` in one statement
    /// (one commit for a claim pass, however many starts were due).
    static func mirrorClaimed(_ starts: [(requestId: String, ordinal: Int)], at: Int64) -> AuditStatement {
        let rows = starts.map { _ in "(request_id = ? AND ordinal = ?)" }.joined(separator: " OR ")
        return .update("record scheduled starts claimed", table: "scheduled_sends",
                       set: [("state", .text(ScheduledStart.State.sending.rawValue)), ("claimed_at", .integer(at))],
                       where: rows, starts.flatMap { [SQLiteValue.text($0.requestId), .integer(Int64($0.ordinal))] }, requestId: nil)
    }

    /// Completes the row of a request whose starts are all final, after its caller was
    /// answered: everything but the caller's status and body. With `onlyWhileScheduled`
    /// (reconciliation, the CLI) a row no longer `scheduled` is left as it is and the
    /// statement throws ``AuditError/unknownRequest(_:)``.
    static func completeScheduled(_ requestId: String, _ completion: AuditCompletion, onlyWhileScheduled: Bool, bodyLimit: Int) -> AuditStatement {
        let columns = AuditCompletionColumns(completion, outcome: completion.outcome, bodyLimit: bodyLimit)
        let condition = onlyWhileScheduled ? "request_id = ? AND outcome = '\(AuditOutcome.scheduled.rawValue)'" : "request_id = ?"
        var statement = AuditStatement.update("complete scheduled request", table: "requests", set: columns.afterAnswer, where: condition,
                                              [.text(requestId)], requestId: requestId)
        // On a log, the outcome row a `scheduled` answer wrote (with its intent) is the one that
        // changes, found by its intent's id (``AuditOutcomeKeySchema``; by its own request id on
        // a file not migrated to that yet).
        let scheduled = onlyWhileScheduled ? " AND outcome = '\(AuditOutcome.scheduled.rawValue)'" : ""
        statement.logSQL = AuditStatement.update("", table: "request_outcomes", set: columns.afterAnswer,
                                                 where: AuditOutcomeKeySchema.outcomeOfRequest + scheduled, [], requestId: nil).sql
        statement.unkeyedLogSQL = AuditStatement.update("", table: "request_outcomes", set: columns.afterAnswer, where: condition, [], requestId: nil).sql
        statement.rollupCondition = (condition, [.text(requestId)])
        return statement
    }
}
