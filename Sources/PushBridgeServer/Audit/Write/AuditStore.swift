/// The audit of every request: SQLite in WAL, or PostgreSQL when `path` is a `postgresql://`
/// URI; written by one thread with group commits, read on separate connections. On SQLite
/// every write is on disk before it returns (the WAL is synced after each commit, see
/// ``AuditStoreConfiguration/pipelinedSync``); on PostgreSQL after its `COMMIT` returned
/// (durable as the server's `synchronous_commit` says).
///
/// Every write is `async` and returns only once the transaction holding it has committed:
/// the proxy begins a row before it calls upstream and finishes it before it answers, so an
/// answered request always has a durable, complete row, and a crash between the two leaves a
/// `pending` row that the next start marks `unknown`. Concurrent callers share a transaction
/// (up to ``AuditStoreConfiguration/maxBatchSize`` operations), which amortizes the fsync.
public final class AuditStore: Sendable {
    /// The database file, or the PostgreSQL URI.
    public let path: String
    /// How it queues and writes.
    public let configuration: AuditStoreConfiguration
    /// Rows a previous process left `pending`, marked `unknown` when this store opened.
    public let recoveredPendingCount: Int
    /// The read side (its own connection): list, show, prune.
    public let reader: AuditReader
    /// The activity ledger's reads (a connection of their own); its writes ride on
    /// completions (``AuditCompletion/ledger``).
    public let activities: ActivityLedger
    /// The writer loop (internal for tests that wait for it to go idle).
    let writer: AuditWriter
    /// The connections to PostgreSQL (the writer's and the reader's); nil on SQLite.
    public let pool: PostgresPool?
    /// Watches whether PostgreSQL answers; nil on SQLite.
    public let probe: PostgresProbe?

    /// Opens (creating if needed) and migrates the audit at `path`, marks rows left pending
    /// by a stopped process as unknown, and starts the writer thread.
    public init(path: String, configuration: AuditStoreConfiguration = AuditStoreConfiguration()) throws(AuditError) {
        let pool: PostgresPool?
        if PostgresURI.isPostgres(path) {
            do throws(PostgresError) { pool = PostgresPool(uri: try PostgresURI(path), configuration: configuration.postgresPool) } catch { throw .postgres(error) }
        } else {
            pool = nil
        }
        let (writer, recovered) = if let pool {
            try AuditWriter.start(postgres: pool, configuration: configuration)
        } else {
            try AuditWriter.start(path: path, configuration: configuration)
        }
        self.path = path
        self.pool = pool
        self.probe = pool.map { PostgresProbe(pool: $0) }
        self.configuration = configuration
        self.writer = writer
        self.recoveredPendingCount = recovered
        do {
            if let pool {
                self.reader = try AuditReader(pool: pool)
                self.activities = ActivityLedger(pool: pool)
            } else {
                self.reader = try AuditReader(path: path, busyTimeout: configuration.busyTimeout)
                self.activities = try ActivityLedger(path: path, busyTimeout: configuration.busyTimeout)
            }
        } catch {
            writer.requestStop()
            throw error
        }
    }

    deinit {
        writer.requestStop()
        probe?.stop()
    }

    /// False while the audit's database cannot be reached (PostgreSQL down or restarting):
    /// requests are then refused with 503 and `/healthz` says unhealthy. Always true on SQLite.
    public var isReachable: Bool { probe?.isReachable ?? true }

    /// Writes the row for a request about to be forwarded (outcome `pending`) with its
    /// findings and the activity-ledger changes `ledger` (a start's record in flight) in the
    /// same transaction, so they are durable and visible to every instance sharing the audit
    /// before anything leaves; returns once committed.
    public func begin(_ entry: AuditEntry, ledger: [ActivityLedgerChange] = []) async throws {
        let bodyLimit = configuration.bodyLimit
        let instance = configuration.instanceName
        try await submit(.insert(row: AuditRowEncoding.requestRow(entry, nil, bodyLimit: bodyLimit, instance: instance),
                                 findings: AuditRowEncoding.findingRows(entry, instance: instance),
                                 ledger: ActivityLedgerSQL.statements(for: ledger, requestId: entry.requestId)),
                         counts: AuditRollupCounts(entry, nil))
    }

    /// Completes a row begun with ``begin(_:)``; returns once committed. Throws
    /// ``AuditError/unknownRequest(_:)`` when there is no such row.
    public func finish(_ requestId: String, _ completion: AuditCompletion) async throws {
        try await submit(finishWork(requestId, completion), counts: AuditRollupCounts(nil, completion))
    }

    /// Completes a row like ``finish(_:_:)`` without suspending: `reply` is called on the
    /// writer thread once the transaction holding it has committed (or failed).
    func finish(_ requestId: String, _ completion: AuditCompletion, reply: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        writer.submit(AuditOperation(work: finishWork(requestId, completion).escapingNUL, submitted: .now, reply: reply,
                                     counts: AuditRollupCounts(nil, completion)))
    }

    private func finishWork(_ requestId: String, _ completion: AuditCompletion) -> AuditOperation.Work {
        let columns = AuditCompletionColumns(completion, outcome: completion.outcome, bodyLimit: configuration.bodyLimit)
        return .finish(requestId: requestId, values: columns.values(thenRequestId: requestId),
                       ledger: ActivityLedgerSQL.statements(for: completion.ledger, requestId: requestId))
    }

    /// Writes the complete row of a request that never reaches upstream (rejected, refused
    /// credentials, unknown route) or reached it before its row was begun (a legacy answer),
    /// with the activity-ledger changes of `completion` in the same transaction; returns once
    /// committed.
    public func record(_ entry: AuditEntry, _ completion: AuditCompletion) async throws {
        let instance = configuration.instanceName
        let row = AuditRowEncoding.requestRow(entry, completion, bodyLimit: configuration.bodyLimit, instance: instance)
        try await submit(.insert(row: row, findings: AuditRowEncoding.findingRows(entry, instance: instance),
                                 ledger: ActivityLedgerSQL.statements(for: completion.ledger, requestId: entry.requestId)),
                         counts: AuditRollupCounts(entry, completion))
    }

    /// Runs one named statement in the writer's next transaction; returns once committed.
    func run(_ statement: AuditStatement) async throws {
        try await submit(.statement(statement))
    }

    /// Queues `work` (its NULs escaped, see ``AuditOperation/Work/escapingNUL``) with what the
    /// rollups may take from it as it is (`counts`); returns once committed.
    func submit(_ work: AuditOperation.Work, counts: AuditRollupCounts? = nil) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writer.submit(AuditOperation(work: work.escapingNUL, submitted: .now, reply: { continuation.resume(with: $0) }, counts: counts))
        }
    }

    /// Operations queued or waiting for room (background work included), not yet committed.
    public var queueDepth: Int { writer.state.withLock { $0.ready.count + $0.waiting.count + $0.background.count } }

    /// The writer's counters.
    public var statistics: AuditStatistics { writer.state.withLock { $0.statistics } }

    /// The duration of the last committed transaction.
    public var lastWriteLatency: Duration? { statistics.lastWriteLatency }

    /// Writes everything queued, then stops the writer thread and closes its connection; on
    /// SQLite the WAL is checkpointed into the file and truncated first, so the `.sqlite` file
    /// alone holds the whole audit. Later writes throw ``AuditError/closed``. Returns why that
    /// checkpoint did not complete (the rows are then still safe in the `-wal`), nil when it did.
    @discardableResult
    public func close() async -> String? {
        probe?.stop()
        await writer.close()
        return writer.state.withLock { $0.checkpointFailure }
    }
}
