import Foundation

/// The audit's PostgreSQL engine: a batch's transaction on a connection borrowed from the pool
/// for that batch. A batch of request rows and completions (the request path's whole traffic)
/// is applied as one libpq pipeline ending in `COMMIT` (``AuditPipeline``): two round trips
/// per batch, whatever its size; other work (named statements, pruning) runs statement by
/// statement.
///
/// Durability is the server's: an acknowledged write is committed as `synchronous_commit`
/// is set for the connection's role and database (`on` by default: flushed to the server's
/// WAL, and to synchronous standbys if any, before `COMMIT` returns).
///
/// PostgreSQL aborts the whole transaction on an error, so an operation that fails on its own
/// (a duplicate id) aborts it and the loop writes the batch again without it. A finish for an
/// unknown row changes no row and fails alone without an abort. When the server is gone the
/// whole batch fails (the callers answer 503); a batch whose `BEGIN` found its pooled
/// connection dead is begun once more on a new one, since nothing was sent.
final class AuditPostgresEngine: AuditWriteEngine {
    private let pool: PostgresPool
    private let prepared: Bool
    private var connection: PostgresConnection?
    /// Set when this batch's connection failed without a server's SQLSTATE (lost, or left
    /// mid-pipeline): it is dropped at the end of the batch, never reused.
    private var lost = false

    /// Migrates the database and marks this instance's rows left `pending` as `unknown`;
    /// returns the engine and how many rows it marked.
    static func open(pool: PostgresPool, configuration: AuditStoreConfiguration) throws -> (AuditPostgresEngine, recovered: Int) {
        let recovered = try pool.withConnection { connection in
            try PostgresSchema.migrator.migrate(connection)
            return try AuditRecovery.recover(connection, instance: configuration.instanceName, now: AuditClock.nowMilliseconds())
        }
        return (AuditPostgresEngine(pool: pool, prepared: configuration.postgresPreparedStatements), recovered)
    }

    private init(pool: PostgresPool, prepared: Bool) {
        self.pool = pool
        self.prepared = prepared
    }

    func begin() throws(AuditError) {
        for attempt in 0..<2 {
            do throws(PostgresError) {
                let current: PostgresConnection
                if let held = connection { current = held } else { current = try pool.borrow() }
                connection = current
                try current.execute("BEGIN")
                return
            } catch {
                lost = lost || error.connectionLost
                endBatch()
                // A dead pooled connection fails at BEGIN, before anything was sent: once more.
                if attempt == 1 || !error.connectionLost { throw AuditError.postgres(error) }
            }
        }
    }

    func apply(_ operations: [(index: Int, work: AuditOperation.Work)]) throws(AuditError) -> AuditApplied {
        guard let connection else { throw AuditError.closed }
        if AuditPipeline.carries(operations.map(\.work)) {
            do throws(AuditError) {
                return try AuditPipeline.apply(operations, on: connection, prepared: prepared)
            } catch {
                if case .postgres(let postgres) = error, postgres.connectionLost { lost = true }
                throw error
            }
        }
        var applied = AuditApplied()
        for (index, work) in operations {
            do {
                try AuditStatements.apply(work, on: connection)
            } catch {
                let failure = AuditError.wrap(error)
                if case .postgres(let postgres) = failure, postgres.connectionLost {
                    lost = true
                    throw failure
                }
                applied.failures[index] = failure
                if connection.transactionFailed {
                    applied.aborted = true
                    break
                }
            }
        }
        return applied
    }

    func commit() throws(AuditError) {
        guard let connection else { throw AuditError.closed }
        do throws(PostgresError) {
            try connection.execute("COMMIT")
        } catch {
            lost = lost || error.connectionLost
            throw AuditError.postgres(error)
        }
    }

    func rollBack() {
        guard let connection, connection.isHealthy, !lost else { return }
        do throws(PostgresError) { try connection.execute("ROLLBACK") } catch { lost = true }
    }

    func endBatch() {
        if let connection { pool.giveBack(connection, lost: lost) }
        connection = nil
        lost = false
    }

    func close() -> String? {
        endBatch()
        return nil
    }
}
