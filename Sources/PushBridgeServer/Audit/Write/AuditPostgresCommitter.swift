import Foundation

/// The PostgreSQL writer's second thread: it waits for the `COMMIT` of a batch while the
/// writer already runs the next batch's statements on another connection, then gives the
/// connection back and acknowledges the batch's callers. What the ``AuditSyncer`` is to
/// SQLite: the server's WAL flush of one batch overlaps the next batch's work instead of
/// stopping the writer.
///
/// Callers are resumed only once their `COMMIT` returned (durable as the server's
/// `synchronous_commit` makes it), in the order the commits were sent. At most two commits
/// are outstanding when the writer takes its next batch (``waitForRoom()``), so the writer
/// holds at most two of the pool's connections between batches.
final class AuditPostgresCommitter: @unchecked Sendable {
    // Why `@unchecked Sendable` is sound: `queue`, `outstanding` and `stopping` are touched
    // only under `condition`; a connection is used by one thread at a time: the writer until
    // it hands it over in ``submit(_:_:)``, then this thread until it gives it to the pool.
    private let condition = NSCondition()
    private var queue: [(connection: PostgresConnection, batch: AuditCommittedBatch)] = []
    private var outstanding = 0
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)
    private let pool: PostgresPool
    private let acknowledge: @Sendable (AuditCommittedBatch, AuditError?) -> Void

    /// Starts the thread; `acknowledge` resumes a batch's callers (with the commit's error,
    /// if any) and runs on this thread, or on the writer's for a commit it waits for itself.
    init(pool: PostgresPool, acknowledge: @escaping @Sendable (AuditCommittedBatch, AuditError?) -> Void) {
        self.pool = pool
        self.acknowledge = acknowledge
        Thread(named: "pb-audit-commit") { [self] in run() }.start()
    }

    /// Blocks while two commits are outstanding.
    func waitForRoom() {
        condition.lock()
        while outstanding > 1 { condition.wait() }
        condition.unlock()
    }

    /// Whether a commit handed over is not yet acknowledged.
    var hasOutstanding: Bool {
        condition.lock()
        defer { condition.unlock() }
        return outstanding > 0
    }

    /// Blocks until every commit handed over is acknowledged.
    func waitUntilIdle() {
        condition.lock()
        while outstanding > 0 { condition.wait() }
        condition.unlock()
    }

    /// Hands over `connection`, whose `COMMIT` of `batch` has been sent.
    func submit(_ connection: PostgresConnection, _ batch: AuditCommittedBatch) {
        condition.lock()
        queue.append((connection, batch))
        outstanding += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for the commit here, on the writer's thread, when no earlier one is outstanding
    /// (false, doing nothing, otherwise): with nothing to overlap, a hand-off would only add
    /// this thread's wake-up to a lone caller's latency.
    func finishHereIfIdle(_ connection: PostgresConnection, _ batch: AuditCommittedBatch) -> Bool {
        condition.lock()
        let idle = outstanding == 0
        condition.unlock()
        if idle { finish(connection, batch) }
        return idle
    }

    /// Waits for every commit handed over and acknowledges it, then ends the thread.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            guard !queue.isEmpty else {
                condition.unlock()
                break
            }
            let (connection, batch) = queue.removeFirst()
            condition.unlock()
            finish(connection, batch)
            condition.lock()
            outstanding -= 1
            condition.broadcast()
            condition.unlock()
        }
        finished.signal()
    }

    /// The `COMMIT`'s result; the connection back to the pool (dropped when it failed without
    /// a server's answer); the batch acknowledged, failed as a whole when the commit failed.
    private func finish(_ connection: PostgresConnection, _ batch: AuditCommittedBatch) {
        var failure: PostgresError?
        do throws(PostgresError) { try connection.finishCommand("COMMIT") } catch { failure = error }
        pool.giveBack(connection, lost: failure?.connectionLost ?? false || !connection.isHealthy)
        acknowledge(batch, failure.map(AuditError.postgres))
    }
}
