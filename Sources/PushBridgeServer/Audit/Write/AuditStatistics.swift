/// Counters of the audit writer, for `/metrics`.
public struct AuditStatistics: Sendable, Equatable {
    /// Transactions committed.
    public var transactions = 0
    /// Transactions that failed as a whole.
    public var failedTransactions = 0
    /// Operations committed.
    public var operations = 0
    /// Callers that found the queue full and waited for room (none was dropped).
    public var waitedForRoom = 0
    /// The last transaction's duration, `BEGIN` until its commit was durable.
    public var lastWriteLatency: Duration?
    /// The largest transaction so far.
    public var largestBatch = 0
    /// Statements sent to the PostgreSQL server by the writer (`BEGIN`, `COMMIT` and
    /// `ROLLBACK` included); 0 on SQLite.
    public var statementsSent = 0

    /// Transactions an event loop committed itself, finding the writer idle
    /// (``AuditStoreConfiguration/loopCommitLimit``); counted in ``transactions`` too.
    public var committedOnLoops = 0

    /// Batches whose rollup counters the writer carried on to a later batch instead of writing
    /// them (``AuditStoreConfiguration/postgresRollupInterval``, ``AuditStoreConfiguration/sqliteRollupInterval``).
    public var carriedRollups = 0

    /// Counters at zero.
    public init() {}

    mutating func record(_ sample: AuditCommitSample, committed: Int) {
        transactions += 1
        operations += committed
        lastWriteLatency = sample.transactionDuration
        largestBatch = max(largestBatch, sample.batchSize)
    }
}
