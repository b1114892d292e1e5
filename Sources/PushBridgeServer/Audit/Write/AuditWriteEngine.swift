/// One database engine under the audit's one writer loop (``AuditWriter``): SQLite
/// (``AuditSQLiteEngine``) or PostgreSQL (``AuditPostgresEngine``).
///
/// The loop owns everything that is not the engine's: the bounded queue, the group commit
/// (one transaction per batch), the rollback-and-rewrite of a batch whose transaction one
/// operation aborted, and the replies to callers. An engine opens a transaction, applies
/// operations inside it, commits or rolls back, and says when a commit is durable.
///
/// Created, used and released on the writer thread only.
protocol AuditWriteEngine: AnyObject {
    /// Opens a transaction for a batch.
    func begin() throws(AuditError)

    /// Applies `operations` (each with its position in the batch) in order inside the open
    /// transaction. An engine may send the commit with them (PostgreSQL's pipeline does, one
    /// round trip for the batch) and says so in the result. Throws when the whole transaction
    /// failed (I/O, disk full, the connection lost).
    func apply(_ operations: [(index: Int, work: AuditOperation.Work)]) throws(AuditError) -> AuditApplied

    /// Commits the open transaction.
    func commit() throws(AuditError)

    /// Rolls the open transaction back, if one is open; never throws (a connection that cannot
    /// roll back is dropped).
    func rollBack()

    /// The batch is over (committed or failed): a pooled connection goes back.
    func endBatch()

    /// Blocks until the engine has room for another batch in flight (SQLite: syncs pending).
    func waitForRoom()

    /// Takes `batch`, committed, to make it durable and acknowledge it later (the SQLite
    /// syncer's `fdatasync`); returns false when its commit is already durable and the loop
    /// acknowledges it now. `alone`: nothing else is queued to overlap with.
    func handOff(_ batch: AuditCommittedBatch, alone: Bool) -> Bool

    /// Where a commit is local and short (SQLite: a few page writes and an `fdatasync`), whether
    /// the engine has nothing in flight (no batch waiting for or inside a sync), callable from
    /// any thread: an event loop may then run a lone operation's transaction itself without
    /// waiting behind another's sync. nil where a commit is a round trip to a server
    /// (PostgreSQL), which a loop must not wait for.
    var idleForCallers: (@Sendable () -> Bool)? { get }

    /// Statements sent to the database server so far (PostgreSQL); 0 where there is none.
    var statementsSent: Int { get }

    /// The open transaction's connection, for the few reads a batch needs (a completion's
    /// row the writer does not hold, ``AuditWriter/rollupWork(_:on:)``); nil when none is open.
    var reads: (any AuditSQL)? { get }

    /// Whether the writer may carry a batch's rollup counters on to a later batch
    /// (``AuditRollupCarry``): PostgreSQL with overlapped commits, and SQLite, whose marks and
    /// recount (``AuditRollupMarkSchema``) they have.
    var carriesRollups: Bool { get }

    /// Whether every commit is made on one connection, each after the one before, and durable
    /// no earlier than every earlier one (SQLite: one WAL, replayed in order up to the last
    /// valid commit). The writer then carries while operations are queued behind a batch or a
    /// commit waits for its sync, marks a carry once rather than with every batch, applies a
    /// batch's operations before it decides whether its counters are carried, and writes a
    /// carry before any batch that does not carry (``AuditRollupCarry``).
    var commitsInOrder: Bool { get }

    /// Whether a commit handed off is still out (not yet acknowledged).
    var commitOutstanding: Bool { get }

    /// Blocks until every commit handed off is acknowledged.
    func settleCommits()

    /// Recounts this instance's rollups from the log from received time `from` on, and
    /// deletes its rollup marks, in a transaction of its own (no batch open).
    func recountRollups(from: Int64) throws(AuditError)

    /// Everything handed off acknowledged, then the connection closed; returns why the last
    /// step that finishes the database (SQLite's WAL checkpoint) did not complete, if it did not.
    func close() -> String?
}

/// What an engine did with a batch's operations inside its transaction.
struct AuditApplied {
    /// Operations that failed (by position in the batch).
    var failures: [Int: AuditError] = [:]
    /// Set when an operation aborted the transaction (PostgreSQL aborts it on any error): the
    /// loop rolls back and writes the batch again without the failures.
    var aborted = false
    /// Failures worth trying again when the batch is written again (a completion whose row
    /// was not there yet); never one the server refused.
    var retry: Set<Int> = []
    /// Set when the engine committed with the operations (PostgreSQL's pipeline).
    var committed = false
}

extension AuditWriteEngine {
    func endBatch() {}
    var statementsSent: Int { 0 }
    var idleForCallers: (@Sendable () -> Bool)? { nil }
    func waitForRoom() {}
    func handOff(_ batch: AuditCommittedBatch, alone: Bool) -> Bool { false }
    var carriesRollups: Bool { false }
    var commitsInOrder: Bool { false }
    var commitOutstanding: Bool { false }
    func settleCommits() {}
    func recountRollups(from: Int64) throws(AuditError) {}
}
