import Foundation

/// The audit's PostgreSQL engine: a batch's transaction on a connection borrowed from the pool
/// for that batch. A batch of request rows, completions and named statements (the request
/// path's whole traffic) is applied as one libpq pipeline after its `BEGIN` (``AuditPipeline``):
/// two round trips per batch, whatever its size. By default each row is one prepared
/// statement (``AuditPipeline/rowByRow(_:)``; a batch holding named statements then runs
/// statement by statement). With ``AuditStoreConfiguration/postgresMultiRow`` set, its request
/// rows go in one multi-row `INSERT`, their findings in another and its completions in one
/// `UPDATE … FROM` (``AuditPipeline/multiRow(_:form:)``); when one of those is refused the
/// batch is rolled back and written again one statement per row, which names the operation
/// that failed. Pruning and background work run statement by statement.
/// The batch's `COMMIT` is sent after its statements and waited for by the
/// ``AuditPostgresCommitter`` while the writer begins the next batch on another connection
/// (``AuditStoreConfiguration/postgresOverlappedCommits``; without it the `COMMIT` ends the
/// pipeline and the writer waits for it); its callers are acknowledged once it returned.
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
    private let multiRow: AuditMultiRowForm?
    private let committer: AuditPostgresCommitter?
    private var connection: PostgresConnection?
    /// The connection whose `COMMIT` this batch sent, until it is handed to the committer.
    private var committing: PostgresConnection?
    /// Set when a multi-row statement of this batch was refused: the rest of the batch is
    /// written one statement per row.
    private var rowByRow = false
    /// Statements sent on connections given back, and the count of the one held when it was borrowed.
    private var sentBefore = 0
    private var sentAtBorrow = 0
    /// Set when this batch's connection failed without a server's SQLSTATE (lost, or left
    /// mid-pipeline): it is dropped at the end of the batch, never reused.
    private var lost = false

    /// Migrates the database and marks this instance's rows left `pending` as `unknown`;
    /// returns the engine and how many rows it marked.
    /// `acknowledge` is how the committer answers a batch whose `COMMIT` returned.
    static func open(pool: PostgresPool, configuration: AuditStoreConfiguration,
                     acknowledge: @escaping @Sendable (AuditCommittedBatch, AuditError?) -> Void) throws -> (AuditPostgresEngine, recovered: Int) {
        let recovered = try pool.withConnection { connection in
            try PostgresSchema.migrator.migrate(connection)
            try AuditRollupRows.fillIfMarked(connection)
            return try AuditRecovery.recover(connection, instance: configuration.instanceName, now: AuditClock.nowMilliseconds())
        }
        let committer = configuration.postgresOverlappedCommits ? AuditPostgresCommitter(pool: pool, acknowledge: acknowledge) : nil
        return (AuditPostgresEngine(pool: pool, prepared: configuration.postgresPreparedStatements, multiRow: configuration.postgresMultiRow,
                                    committer: committer), recovered)
    }

    private init(pool: PostgresPool, prepared: Bool, multiRow: AuditMultiRowForm?, committer: AuditPostgresCommitter?) {
        self.pool = pool
        self.prepared = prepared
        self.multiRow = multiRow
        self.committer = committer
    }

    var reads: (any AuditSQL)? { connection }

    var statementsSent: Int { sentBefore + (connection.map { $0.statementsSent - sentAtBorrow } ?? 0) }

    func begin() throws(AuditError) {
        for attempt in 0..<2 {
            do throws(PostgresError) {
                let current: PostgresConnection
                if let held = connection {
                    current = held
                } else {
                    current = try pool.borrow()
                    sentAtBorrow = current.statementsSent
                }
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
        if let plan = pipelinePlan(operations) {
            do throws(AuditError) {
                let (applied, refusedMany) = try AuditPipeline.apply(plan, on: connection, prepared: prepared, commit: committer == nil)
                rowByRow = rowByRow || refusedMany
                return applied
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

    /// The pipeline for `operations`: multi-row unless turned off or refused in this batch, or
    /// unless it would save no statement (no two rows of one kind: a lone caller's batch),
    /// else one statement per row; nil for a batch a pipeline does not carry.
    private func pipelinePlan(_ operations: [(index: Int, work: AuditOperation.Work)]) -> [AuditPipeline.Statement]? {
        let work = operations.map(\.work)
        let lone = AuditPipeline.carries(work) && !AuditPipeline.hasRowsToGroup(work)
        if let multiRow, !rowByRow, !lone, AuditPipeline.carries(work, statements: true),
           let plan = AuditPipeline.multiRow(operations, form: multiRow) {
            return plan
        }
        return AuditPipeline.carries(work) ? AuditPipeline.rowByRow(operations) : nil
    }

    /// With the committer, sends `COMMIT` without waiting for it: ``handOff(_:alone:)`` gives
    /// the connection to the committer, and the writer goes on with the next batch.
    func commit() throws(AuditError) {
        guard let connection else { throw AuditError.closed }
        do throws(PostgresError) {
            guard committer != nil else {
                try connection.execute("COMMIT")
                return
            }
            try connection.send("COMMIT")
            sentBefore += connection.statementsSent - sentAtBorrow
            committing = connection
            self.connection = nil
        } catch {
            lost = lost || error.connectionLost
            throw AuditError.postgres(error)
        }
    }

    func waitForRoom() {
        committer?.waitForRoom()
    }

    /// The batch's commit to the committer (waited for here when nothing else is outstanding
    /// and no operation waits); false when it committed in its pipeline, or failed.
    func handOff(_ batch: AuditCommittedBatch, alone: Bool) -> Bool {
        guard let committer, let sent = committing else { return false }
        committing = nil
        if !(alone && committer.finishHereIfIdle(sent, batch)) { committer.submit(sent, batch) }
        return true
    }

    func rollBack() {
        guard let connection, connection.isHealthy, !lost else { return }
        do throws(PostgresError) { try connection.execute("ROLLBACK") } catch { lost = true }
    }

    func endBatch() {
        if let connection {
            sentBefore += connection.statementsSent - sentAtBorrow
            pool.giveBack(connection, lost: lost)
        }
        connection = nil
        lost = false
        rowByRow = false
    }

    func close() -> String? {
        committer?.stop()
        endBatch()
        return nil
    }
}
