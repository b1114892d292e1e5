/// The audit's SQLite engine: the writer's connection with its prepared statements
/// (``AuditStatements``), the ``AuditSyncer`` that makes commits durable off the writer
/// thread, and the ``AuditCheckpointer`` that checkpoints the WAL off it too.
///
/// An operation that fails on its own (a duplicate id, a finish for an unknown row) fails
/// alone: SQLite undoes just that statement and the rest commit. An error that ends the
/// transaction (disk full, I/O) fails the whole batch.
final class AuditSQLiteEngine: AuditWriteEngine {
    private let statements: AuditStatements
    private var syncer: AuditSyncer?
    private var checkpointer: AuditCheckpointer?

    private var database: SQLiteDatabase { statements.database }

    /// Opens, creates and migrates the file at `path`, gives every intent left without its
    /// outcome an `unknown` one (``AuditRecovery/recoverLog(_:instance:now:)``) and starts the
    /// syncer and checkpointer; returns the engine and how many intents it settled.
    /// `acknowledge` is how the syncer answers a batch it made durable.
    static func open(path: String, configuration: AuditStoreConfiguration,
                     acknowledge: @escaping @Sendable (AuditCommittedBatch, AuditError?) -> Void) throws -> (AuditSQLiteEngine, recovered: Int) {
        let database = try AuditDatabase.openForWriting(path: path, configuration: configuration)
        let (recovered, settledThrough) = try AuditRecovery.recoverLog(database, instance: configuration.instanceName, now: AuditClock.nowMilliseconds())
        let engine = AuditSQLiteEngine(statements: try AuditStatements(database: database, instance: configuration.instanceName,
                                                                       settledThrough: settledThrough))
        do {
            if configuration.walAutocheckpointPages > 0 {
                // Checkpoints off this thread, so none runs inside a request batch's COMMIT.
                let background = try AuditCheckpointer(path: path, busyTimeout: configuration.busyTimeout,
                                                       thresholdPages: configuration.walAutocheckpointPages,
                                                       beforeCheckpoint: configuration.beforeCheckpoint)
                database.setWALObserver(background.observer)
                engine.checkpointer = background
            }
            if configuration.pipelinedSync, let file = try AuditDatabase.openWALSync(database) {
                engine.syncer = AuditSyncer(file: file, maxPendingBatches: configuration.maxUnsyncedBatches,
                                            beforeSync: configuration.beforeWALSync, acknowledge: acknowledge)
            }
        } catch {
            database.setWALObserver(nil)
            engine.checkpointer?.stop()
            throw error
        }
        return (engine, recovered)
    }

    private init(statements: AuditStatements) {
        self.statements = statements
    }

    /// A commit here is local; idle when the syncer (if any) has nothing in flight (see
    /// ``AuditWriteEngine/idleForCallers``).
    var idleForCallers: (@Sendable () -> Bool)? {
        let syncer = syncer
        return { syncer?.isIdle ?? true }
    }

    var reads: (any AuditSQL)? { database }

    func begin() throws(AuditError) {
        do { try statements.beginTransaction() } catch { throw AuditError.wrap(error) }
    }

    func apply(_ operations: [(index: Int, work: AuditOperation.Work)]) throws(AuditError) -> AuditApplied {
        var applied = AuditApplied()
        for (index, work) in operations {
            do {
                try statements.apply(work)
            } catch {
                applied.failures[index] = error
                if !database.isInTransaction { throw error }
            }
        }
        return applied
    }

    func commit() throws(AuditError) {
        do { try statements.commitTransaction() } catch { throw AuditError.wrap(error) }
    }

    func rollBack() {
        if database.isInTransaction { try? database.execute("ROLLBACK TRANSACTION") }
        statements.rolledBack()
    }

    func waitForRoom() {
        syncer?.waitForRoom()
    }

    /// Carried while a commit waits for its `fdatasync` or operations are queued
    /// (``AuditWriter/mayCarryRollups(_:on:)``), unless ``AuditStoreConfiguration/sqliteRollupInterval``
    /// is nil; with the syncer only. A carried batch's callers are answered once its own sync
    /// returned, as any batch's; the carry rides on a later commit (``AuditRollupBarrier``).
    var carriesRollups: Bool { syncer != nil }

    /// A committed batch waits for its `fdatasync`, or is inside one (not once it returned).
    var commitOutstanding: Bool { syncer?.hasUnsyncedCommits ?? false }

    /// One connection, one WAL: a commit is seen by the next on this connection at once, and
    /// durable only with every earlier one (``AuditSyncer``, point 3).
    var commitsInOrder: Bool { true }

    /// In a transaction of its own on the writer's connection (no batch open); every
    /// instance's counter rows (``AuditRollupRows/recountAll(_:from:)``: the one writer's fold
    /// moves other instances' rows too).
    func recountRollups(from: Int64) throws(AuditError) {
        do {
            try database.transaction(.immediate) { try AuditRollupRows.recountAll(database, from: from) }
        } catch {
            throw AuditError.wrap(error)
        }
    }

    /// With the syncer, the commit is durable after its `fdatasync`: here when nothing waits to
    /// overlap with it (no hand-off latency for a lone caller), else on the syncer's thread.
    /// Without it (`synchronous=FULL`), `COMMIT` returned after its fsync. A failed transaction
    /// left nothing to sync.
    func handOff(_ batch: AuditCommittedBatch, alone: Bool) -> Bool {
        guard let syncer, batch.batchError == nil else { return false }
        if !(alone && syncer.synchronizeHereIfIdle(batch)) { syncer.submit(batch) }
        return true
    }

    /// Every commit made durable and acknowledged, then the WAL checkpointed into the file and
    /// truncated (the reader's connection stays open, so closing this one would not
    /// checkpoint: the file alone would lack every row still in the -wal), so a closed store's
    /// file is quiet and complete on its own.
    func close() -> String? {
        syncer?.stop()
        syncer = nil
        database.setWALObserver(nil)
        checkpointer?.stop()
        checkpointer = nil
        // Everything written is settled or open: the next start's recovery reads from here.
        try? statements.writeMark()
        try? statements.closeMinutes()
        do {
            try database.checkpointTruncatingWAL()
            return nil
        } catch {
            return "\(error)"
        }
    }
}
