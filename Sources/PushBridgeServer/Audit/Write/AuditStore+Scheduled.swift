extension AuditStore {
    /// Writes the complete row of a request, like ``record(_:_:)``, with `statements` (a
    /// scheduled request's `scheduled_sends` mirror rows) in the same operation, so in the
    /// same transaction: one durable commit for the row and all its mirror rows, all or
    /// nothing. Returns once committed.
    func record(_ entry: AuditEntry, _ completion: AuditCompletion, with statements: [AuditStatement]) async throws {
        let instance = configuration.instanceName
        let row = AuditRowEncoding.requestRow(entry, completion, bodyLimit: configuration.bodyLimit, instance: instance)
        try await submit(.insert(row: row, findings: AuditRowEncoding.findingRows(entry, instance: instance),
                                 ledger: ActivityLedgerSQL.statements(for: completion.ledger, requestId: entry.requestId) + statements))
    }
}
