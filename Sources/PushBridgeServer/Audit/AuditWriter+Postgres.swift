import Foundation

/// The writer thread on PostgreSQL: the same queue and group commit as on SQLite (callers of
/// one batch share one transaction; each is answered only after `COMMIT` returned), on a
/// connection borrowed from the pool per batch.
///
/// Durability is the server's: an acknowledged write is committed as `synchronous_commit`
/// is set for the connection's role and database (`on` by default: flushed to the server's
/// WAL, and to synchronous standbys if any, before `COMMIT` returns).
///
/// An operation that fails on its own (a duplicate id) fails alone: PostgreSQL aborts the
/// whole transaction on an error, so the batch is rolled back and written again without it.
/// A finish for an unknown row changes no row and fails alone without an abort. When the
/// server is gone the whole batch fails (the callers answer 503); a batch whose `BEGIN`
/// found its pooled connection dead is retried once on a new one, since nothing was sent.
/// After `BEGIN`, a batch of request rows and completions (the request path's whole traffic)
/// is sent as one libpq pipeline ending in `COMMIT`: two round trips per batch, whatever its
/// size, instead of one per statement.
extension AuditWriter {
    /// Migrates the database, marks this instance's rows left `pending` as `unknown`, and
    /// starts the writer thread.
    static func start(postgres pool: PostgresPool, configuration: AuditStoreConfiguration) throws(AuditError) -> (AuditWriter, recovered: Int) {
        let recovered: Int
        do {
            recovered = try pool.withConnection { connection in
                try PostgresSchema.migrator.migrate(connection)
                return try connection.change(AuditDatabase.markPendingUnknownSQL + " AND instance_name = ?",
                                             [.integer(AuditClock.nowMilliseconds()), .text(configuration.instanceName)])
            }
        } catch {
            throw AuditError.wrap(error)
        }
        let writer = AuditWriter(configuration: configuration)
        let thread = Thread { writer.runPostgres(pool) }
        thread.name = "pushbridge-audit-writer"
        thread.start()
        return (writer, recovered)
    }

    private func runPostgres(_ pool: PostgresPool) {
        while let batch = nextBatch() {
            if batch.isEmpty {
                wake.wait()
                continue
            }
            acknowledge(write(batch, pool: pool), durabilityError: nil)
        }
        resumeCloseWaiters()
    }

    /// Runs `batch` in one transaction and returns it for acknowledgement; resumes no one.
    func write(_ batch: [AuditOperation], pool: PostgresPool) -> AuditCommittedBatch {
        let start = ContinuousClock.now
        var failures: [Int: AuditError] = [:]
        var batchError: AuditError?
        for attempt in 0..<2 {
            var began = false
            do {
                try pool.withConnection { connection in
                    try connection.execute("BEGIN")
                    began = true
                    do {
                        try writeAll(batch, failures: &failures, on: connection)
                    } catch {
                        if connection.isHealthy { _ = try? connection.execute("ROLLBACK") }
                        throw error
                    }
                }
                batchError = nil
                break
            } catch {
                batchError = AuditError.wrap(error)
                // A dead pooled connection fails at BEGIN, before anything was sent: retry once.
                if began || attempt == 1 || (error as? PostgresError)?.connectionLost != true { break }
            }
        }
        return AuditCommittedBatch(operations: batch, failures: failures, batchError: batchError, began: start, committed: .now)
    }

    /// Applies every operation not yet failed and commits; on an operation's error, rolls back,
    /// records it, and starts the transaction again without it. A batch of request rows and
    /// completions goes as one pipeline (``AuditPipeline``): one round trip after `BEGIN`.
    private func writeAll(_ batch: [AuditOperation], failures: inout [Int: AuditError], on connection: PostgresConnection) throws {
        if AuditPipeline.carries(batch) {
            try AuditPipeline.write(batch, failures: &failures, on: connection)
            return
        }
        while true {
            var aborted = false
            for (index, operation) in batch.enumerated() where failures[index] == nil {
                do {
                    try AuditStatements.apply(operation.work, on: connection)
                } catch {
                    if let lost = error as? PostgresError, lost.connectionLost { throw error }
                    failures[index] = AuditError.wrap(error)
                    if connection.transactionFailed {
                        aborted = true
                        break
                    }
                }
            }
            if !aborted {
                try connection.execute("COMMIT")
                return
            }
            try connection.execute("ROLLBACK")
            try connection.execute("BEGIN")
        }
    }
}
