import PushBridgeCore

extension ScheduledStartLifecycle {
    /// `pending` → `cancelled` in the store (its body deleted); false when it was no longer
    /// pending. With `auditDatabase` (an audit file, or the PostgreSQL URI of a shared audit),
    /// the mirror too and, once none of the request's starts is open, the request's row from
    /// the store's record, in one transaction on the CLI's own connection (an ``AuditStore``
    /// would mark a running proxy's rows in flight `unknown`). A row no longer `scheduled` is
    /// left as it is. Without it, the next proxy start settles the row (``reconcile(cutoff:now:log:)``).
    public func cancel(_ id: String, auditDatabase: String?, now: Int64) async throws -> Bool {
        guard try await store.cancel(id, now: now) else { return false }
        guard let auditDatabase, let start = try await store.start(id) else { return true }
        let siblings = try await store.starts(ofRequest: start.requestId)
        let audit: SerializedDatabase
        if PostgresURI.isPostgres(auditDatabase) {
            audit = SerializedDatabase(.postgres(try PostgresLink(uri: PostgresURI(auditDatabase).text, label: "cancel")), label: "cancel-audit")
        } else {
            let file = try SQLiteDatabase(path: auditDatabase)
            try file.execute("PRAGMA busy_timeout = 5000")
            audit = SerializedDatabase(.sqlite(file), label: "cancel-audit")
        }
        try await audit.perform { db in try Self.recordCancel(start, siblings: siblings, now: now, on: db) }
        return true
    }

    /// The audit's side of a cancel, in one transaction on `db`.
    private static func recordCancel(_ start: ScheduledStart, siblings: [ScheduledStart], now: Int64, on db: any AuditSQL) throws {
        try db.inTransaction {
            try AuditStatement.mirrorState(requestId: start.requestId, ordinal: start.ordinal, state: .cancelled, at: now).run(on: db)
            let mirror = try db.select("SELECT ordinal, attempts FROM scheduled_sends WHERE request_id = ?", [.text(start.requestId)])
            guard var completion = ScheduledStart.auditCompletion(of: siblings, attempts: { ordinal in
                UpstreamAttempt.parse(mirror.first { $0[0].integerValue == Int64(ordinal) }?[1].textValue)
            }, now: now) else { return }
            if completion.outcome == .rejected, siblings.allSatisfy({ $0.error == nil }) {
                completion.errorMessage = "cancelled before its send time with pushbridge scheduled cancel"
            }
            do {
                try AuditStatement.completeScheduled(start.requestId, completion, onlyWhileScheduled: true, bodyLimit: AuditStoreConfiguration().bodyLimit).run(on: db)
            } catch AuditError.unknownRequest {
                // Completed meanwhile (or gone): left as it is.
            }
        }
    }
}
