import Foundation

/// The audit's PostgreSQL engine: a batch's transaction on a connection borrowed from the pool
/// for that batch, written to the audit as a log (``PostgresAuditLogSchema``: intents in
/// `request_log`, completions in `request_outcomes`, inserts only). A batch of intents,
/// completions and named statements (the request path's whole traffic, the activity ledger's
/// changes and shadow comparisons included) is applied as one libpq pipeline headed by its
/// `BEGIN` (``AuditPipeline``): one round trip per batch, whatever its size, and its `COMMIT`. With
/// ``AuditStoreConfiguration/postgresMultiRow`` (default `.unnest`) a batch with two rows of a
/// kind sends its intents in one multi-row `INSERT`, their findings in another and its
/// completions in one `INSERT … SELECT` (``AuditPipeline/multiRow(_:form:)``); a lone
/// caller's batch goes one prepared statement per row (``AuditPipeline/rowByRow(_:)``). When a
/// multi-row statement is refused the batch is rolled back and written again one statement
/// per row, which names the operation that failed. Pruning and background work run
/// statement by statement, alone. The writer makes the log's day partitions ahead
/// (``AuditPostgresPartitions``) and advances this instance's recovery mark in its batches
/// (``AuditPostgresRecovery``).
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
    /// Set by ``begin()``: the batch's `BEGIN` is still to be sent, at the head of its pipeline.
    private var beginPending = false
    private let instance: String
    /// Intents this writer sent without their completion yet (request id → received time):
    /// the oldest bounds this instance's recovery mark.
    private var openIntents: [String: Int64] = [:]
    /// When the recovery mark was last set (Unix ms; 0 after a rollback: set it again), and to what.
    private var markedAt: Int64 = 0
    private var mark: Int64
    /// The UTC day the coming days' partitions were last made on, and when that was last tried (Unix ms).
    private var partitionsDay: Int64
    private var partitionsTriedAt: Int64 = 0
    /// Open intents tracked at most: past it the mark stays where it is (recovery reads more, never less).
    static let openIntentLimit = 100_000

    /// Migrates the database and marks this instance's rows left `pending` as `unknown`;
    /// returns the engine and how many rows it marked.
    /// `acknowledge` is how the committer answers a batch whose `COMMIT` returned.
    static func open(pool: PostgresPool, configuration: AuditStoreConfiguration,
                     acknowledge: @escaping @Sendable (AuditCommittedBatch, AuditError?) -> Void) throws -> (AuditPostgresEngine, recovered: Int) {
        let now = AuditClock.nowMilliseconds()
        let (recovered, partitioned) = try pool.withConnection { connection in
            try PostgresSchema.migrator.migrate(connection)
            try AuditRollupRows.fillIfMarked(connection)
            // Days not made now (a lock not had in time) are made by the writer's first batches.
            let partitioned = (try? AuditPostgresPartitions.ensure(on: connection, now: now)) != nil
            return (try AuditPostgresRecovery.recover(connection, instance: configuration.instanceName, now: now), partitioned)
        }
        let committer = configuration.postgresOverlappedCommits ? AuditPostgresCommitter(pool: pool, acknowledge: acknowledge) : nil
        return (AuditPostgresEngine(pool: pool, prepared: configuration.postgresPreparedStatements, multiRow: configuration.postgresMultiRow,
                                    committer: committer, instance: configuration.instanceName, partitionsDay: partitioned ? now / 86_400_000 : -1,
                                    mark: AuditPostgresRecovery.mark(openSince: nil, now: now)), recovered)
    }

    private init(pool: PostgresPool, prepared: Bool, multiRow: AuditMultiRowForm?, committer: AuditPostgresCommitter?, instance: String,
                 partitionsDay: Int64, mark: Int64) {
        self.pool = pool
        self.prepared = prepared
        self.multiRow = multiRow
        self.committer = committer
        self.instance = instance
        self.partitionsDay = partitionsDay
        self.mark = mark
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
                keepPartitions(on: current)
                beginPending = true
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
        if var plan = pipelinePlan(operations) {
            if let mark = advanceMark(operations) { plan.append(mark) }
            return try applyPipeline(plan)
        }
        guard let connection else { throw AuditError.closed }
        if beginPending {
            do throws(PostgresError) { try connection.execute("BEGIN") } catch {
                lost = lost || error.connectionLost
                throw AuditError.postgres(error)
            }
            beginPending = false
        }
        var applied = AuditApplied()
        for (index, work) in operations {
            do {
                try AuditPostgresLogSQL.apply(work, on: connection)
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

    /// Sends `plan` as one pipeline, headed by the batch's `BEGIN` when it was not sent yet:
    /// one round trip for the whole batch. A pooled connection found dead by that round trip
    /// (the server restarted since it was last used) committed nothing, since the `COMMIT`
    /// travels apart with the committer: the batch is sent once more on a new connection.
    private func applyPipeline(_ plan: [AuditPipeline.Statement]) throws(AuditError) -> AuditApplied {
        for attempt in 0..<2 {
            guard let connection else { throw AuditError.closed }
            do throws(AuditError) {
                let (applied, refusedMany) = try AuditPipeline.apply(plan, on: connection, prepared: prepared, begin: beginPending, commit: committer == nil)
                beginPending = false
                rowByRow = rowByRow || refusedMany
                return applied
            } catch {
                guard case .postgres(let postgres) = error, postgres.connectionLost else {
                    // The server answered: its BEGIN ran, so ``rollBack()`` ends the transaction.
                    beginPending = false
                    throw error
                }
                guard attempt == 0, beginPending, committer != nil, replaceLostConnection() else {
                    lost = true
                    throw error
                }
            }
        }
        throw AuditError.closed
    }

    /// Drops the batch's connection as lost and borrows another; false when none can be had.
    private func replaceLostConnection() -> Bool {
        guard let old = connection else { return false }
        sentBefore += old.statementsSent - sentAtBorrow
        pool.giveBack(old, lost: true)
        connection = nil
        do throws(PostgresError) {
            let fresh = try pool.borrow()
            sentAtBorrow = fresh.statementsSent
            connection = fresh
            lost = false
            return true
        } catch {
            return false
        }
    }

    /// The pipeline for `operations`: multi-row unless turned off or refused in this batch, or
    /// unless it would save no statement (no two rows of one kind: a lone caller's batch),
    /// else one statement per row; nil for background work, which a pipeline does not carry.
    private func pipelinePlan(_ operations: [(index: Int, work: AuditOperation.Work)]) -> [AuditPipeline.Statement]? {
        let work = operations.map(\.work)
        guard AuditPipeline.carries(work, statements: true) else { return nil }
        let receivedAt = { [openIntents] (requestId: String) in openIntents[requestId] }
        if let multiRow, !rowByRow, AuditPipeline.hasRowsToGroup(work),
           let plan = AuditPipeline.multiRow(operations, form: multiRow, receivedAt: receivedAt) {
            return plan
        }
        return AuditPipeline.rowByRow(operations, receivedAt: receivedAt)
    }

    /// Notes the intents `operations` open and the completions that close them, and returns
    /// the statement that sets this instance's recovery mark, for this batch's pipeline: every
    /// ``AuditPostgresRecovery/markInterval``, and at once when an intent of the batch was
    /// received before the mark last set. A batch written again (one of its operations failed)
    /// notes the same again, which changes nothing, and sets the mark again (``rollBack()``);
    /// an intent that failed stays noted and only holds the mark back. Past
    /// ``openIntentLimit`` open intents the mark only moves back.
    private func advanceMark(_ operations: [(index: Int, work: AuditOperation.Work)]) -> AuditPipeline.Statement? {
        var lowest = Int64.max
        for (_, work) in operations {
            switch work {
            case .insert(let row, _, _):
                guard let (requestId, receivedAt) = AuditPostgresLogSQL.openIntent(of: row) else { break }
                lowest = min(lowest, receivedAt)
                if openIntents.count < Self.openIntentLimit { openIntents[requestId] = receivedAt }
            case .finish(let requestId, _, _):
                openIntents[requestId] = nil
            case .statement, .prune, .background, .rollup:
                break
            }
        }
        let now = AuditClock.nowMilliseconds()
        guard lowest < mark || now - markedAt >= AuditPostgresRecovery.markInterval else { return nil }
        markedAt = now
        mark = openIntents.count < Self.openIntentLimit ? AuditPostgresRecovery.mark(openSince: openIntents.values.min(), now: now) : min(mark, lowest)
        return AuditPostgresRecovery.markStatement(instance: instance, mark: mark)
    }

    /// Makes the coming days' partitions on `connection` when the UTC day is not the one they
    /// were last made on, tried at most once a minute (a lock not had in time waits for the next try).
    private func keepPartitions(on connection: PostgresConnection) {
        let now = AuditClock.nowMilliseconds()
        guard now / 86_400_000 != partitionsDay, now - partitionsTriedAt >= 60_000 || now < partitionsTriedAt else { return }
        partitionsTriedAt = now
        do throws(PostgresError) {
            try AuditPostgresPartitions.ensure(on: connection, now: now)
            partitionsDay = now / 86_400_000
        } catch {
            lost = lost || error.connectionLost
        }
    }

    /// With the committer, sends `COMMIT` without waiting for it: ``handOff(_:alone:)`` gives
    /// the connection to the committer, and the writer goes on with the next batch.
    func commit() throws(AuditError) {
        guard let connection else { throw AuditError.closed }
        do throws(PostgresError) {
            if beginPending {
                try connection.execute("BEGIN")
                beginPending = false
            }
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

    /// With overlapped commits only: a batch then carries its counters while a commit is out.
    var carriesRollups: Bool { committer != nil }

    var commitOutstanding: Bool { committer?.hasOutstanding ?? false }

    func settleCommits() {
        committer?.waitUntilIdle()
    }

    /// On a connection of its own from the pool (the writer holds none between batches).
    func recountRollups(from: Int64) throws(AuditError) {
        do {
            try pool.withConnection { connection in
                try connection.transaction { try AuditRollupRows.recount(connection, instance: instance, from: from) }
            }
        } catch {
            throw AuditError.wrap(error)
        }
    }

    func rollBack() {
        markedAt = 0
        // Nothing was sent since the batch's BEGIN was due: no transaction to roll back.
        guard !beginPending else { return }
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
        beginPending = false
    }

    func close() -> String? {
        committer?.stop()
        endBatch()
        return nil
    }
}
