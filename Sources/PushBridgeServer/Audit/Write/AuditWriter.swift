import Dispatch
import Foundation
import Synchronization

/// The audit's one writer loop, over either engine (``AuditWriteEngine``: SQLite or PostgreSQL): one
/// thread that owns the engine, with the bounded queue in front of it. It takes what has
/// queued as one batch, writes it in one transaction (group commit), rolls back and rewrites a
/// batch one operation aborted, and answers every caller once its commit is durable.
///
/// Why `@unchecked Sendable` is sound: callers on any thread, and the SQLite syncer's
/// thread, touch only `state` (a `Mutex`), the semaphore (thread-safe by contract) and the
/// immutable `configuration`. The engine — the connection and its prepared statements — is
/// created, used and released only on the writer thread, inside `run`, and never escapes it.
final class AuditWriter: @unchecked Sendable {
    struct State {
        var ready: [AuditOperation] = []
        /// Callers that found the queue full, in arrival order (each is suspended).
        var waiting: [AuditOperation] = []
        /// Background work (retention's deletes), in arrival order: each runs in a transaction
        /// of its own, when no request operation is queued or after
        /// ``AuditStoreConfiguration/backgroundYieldBatches`` request batches went first.
        var background: [AuditOperation] = []
        /// Request batches taken while background work waited, since the last one ran.
        var batchesAheadOfBackground = 0
        var closing = false
        var sleeping = false
        var closed = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        /// Why the WAL checkpoint at close did not complete (SQLite), if it did not.
        var checkpointFailure: String?
        var statistics = AuditStatistics()
    }

    let configuration: AuditStoreConfiguration
    let state = Mutex(State())
    /// The open intents the rollups count completions under; used on the writer thread only.
    var rollupIntents = AuditRollupIntents()
    /// The fold each batch is counted in, reset and reused (its room and interned strings
    /// kept); used on the writer thread only.
    var rollupFold = AuditRollupFold()
    let wake = DispatchSemaphore(value: 0)

    init(configuration: AuditStoreConfiguration) {
        self.configuration = configuration
    }

    /// Starts the writer thread on SQLite: it opens `path`, migrates it and marks rows left
    /// pending as unknown. Returns once that is done (or throws what failed), with how many
    /// rows it marked.
    static func start(path: String, configuration: AuditStoreConfiguration) throws(AuditError) -> (AuditWriter, recovered: Int) {
        try start(configuration: configuration) { writer in
            let (engine, recovered) = try AuditSQLiteEngine.open(path: path, configuration: configuration) { batch, error in
                writer.acknowledge(batch, durabilityError: error)
            }
            return (engine, recovered)
        }
    }

    /// Starts the writer thread on PostgreSQL: it migrates the database and marks this
    /// instance's rows left pending as unknown, as ``start(path:configuration:)`` does.
    static func start(postgres pool: PostgresPool, configuration: AuditStoreConfiguration) throws(AuditError) -> (AuditWriter, recovered: Int) {
        try start(configuration: configuration) { writer in
            let (engine, recovered) = try AuditPostgresEngine.open(pool: pool, configuration: configuration) { batch, error in
                writer.acknowledge(batch, durabilityError: error)
            }
            return (engine, recovered)
        }
    }

    /// Starts the writer thread, which opens its engine with `open`; returns once it has.
    private static func start(configuration: AuditStoreConfiguration,
                              open: @escaping @Sendable (AuditWriter) throws -> (any AuditWriteEngine, Int)) throws(AuditError) -> (AuditWriter, recovered: Int) {
        let writer = AuditWriter(configuration: configuration)
        let opened = Mutex<Result<Int, AuditError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread(named: "pb-audit-writer") {
            writer.run(open) { result in
                opened.withLock { $0 = result }
                ready.signal()
            }
        }
        thread.start()
        ready.wait()
        switch opened.withLock({ $0 }) {
        case .success(let recovered): return (writer, recovered)
        case .failure(let error): throw error
        case nil: throw AuditError.closed
        }
    }

    // MARK: Callers' side

    /// Queues `operation`, or parks it behind the full queue (the caller stays suspended: a
    /// row is never dropped). Fails it at once when the store is closing.
    func submit(_ operation: AuditOperation) {
        let capacity = configuration.queueCapacity
        let (accepted, wakeWriter) = state.withLock { state -> (Bool, Bool) in
            guard !state.closing else { return (false, false) }
            if operation.work.isBackground {
                state.background.append(operation)
            } else if state.ready.count < capacity && state.waiting.isEmpty {
                state.ready.append(operation)
            } else {
                state.waiting.append(operation)
                state.statistics.waitedForRoom += 1
            }
            defer { state.sleeping = false }
            return (true, state.sleeping)
        }
        if !accepted { operation.reply(.failure(AuditError.closed)) }
        if wakeWriter { wake.signal() }
    }

    /// Asks the thread to write everything queued and stop; returns when it has.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (alreadyClosed, wakeWriter) = state.withLock { state -> (Bool, Bool) in
                state.closing = true
                if state.closed { return (true, false) }
                state.closeWaiters.append(continuation)
                defer { state.sleeping = false }
                return (false, state.sleeping)
            }
            if wakeWriter { wake.signal() }
            if alreadyClosed { continuation.resume() }
        }
    }

    /// Asks the thread to stop without waiting (for `deinit`).
    func requestStop() {
        let wakeWriter = state.withLock { state -> Bool in
            state.closing = true
            defer { state.sleeping = false }
            return state.sleeping
        }
        if wakeWriter { wake.signal() }
    }

    // MARK: The writer thread

    private func run(_ open: (AuditWriter) throws -> (any AuditWriteEngine, Int), opened: (Result<Int, AuditError>) -> Void) {
        let failure: String?
        do {
            let (engine, recovered) = try open(self)
            opened(.success(recovered))
            drive(engine)
            failure = engine.close()
        } catch {
            state.withLock { $0.closing = true; $0.closed = true }
            opened(.failure(AuditError.wrap(error)))
            return
        }
        // Every commit made durable and acknowledged, the engine closed (on SQLite the WAL
        // checkpointed into the file) and released with its connection (its scope ended above)
        // before anyone waiting in close() resumes: a closed store's file is quiet and complete.
        state.withLock { $0.checkpointFailure = failure }
        resumeCloseWaiters()
    }

    /// The loop: a batch from the queue, written in one transaction, its callers answered once
    /// it is durable; until the store closes and everything queued is written.
    private func drive(_ engine: any AuditWriteEngine) {
        while true {
            engine.waitForRoom()
            guard let batch = nextBatch() else { return }
            if batch.isEmpty {
                wake.wait()
                continue
            }
            let committed = write(batch, on: engine)
            let alone = state.withLock { $0.ready.isEmpty && $0.waiting.isEmpty }
            if !engine.handOff(committed, alone: alone) { acknowledge(committed, durabilityError: nil) }
        }
    }

    /// Marks the writer closed and resumes everyone waiting in ``close()``.
    func resumeCloseWaiters() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.closeWaiters = [] }
            return state.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Up to `maxBatchSize` request operations, or one background operation alone (see
    /// ``State/background``); `[]` after marking the thread asleep when there are none; nil
    /// when closing and everything is written.
    func nextBatch() -> [AuditOperation]? {
        let capacity = configuration.queueCapacity
        let maximum = max(1, configuration.maxBatchSize)
        let yieldBatches = max(0, configuration.backgroundYieldBatches)
        return state.withLock { state -> [AuditOperation]? in
            let requestsQueued = !(state.ready.isEmpty && state.waiting.isEmpty)
            if !state.background.isEmpty && (!requestsQueued || state.batchesAheadOfBackground >= yieldBatches) {
                state.batchesAheadOfBackground = 0
                return [state.background.removeFirst()]
            }
            if !requestsQueued {
                if state.closing { return nil }
                state.sleeping = true
                return []
            }
            if !state.background.isEmpty { state.batchesAheadOfBackground += 1 }
            let count = min(maximum, state.ready.count)
            let batch = Array(state.ready.prefix(count))
            state.ready.removeFirst(count)
            let room = capacity - state.ready.count
            if room > 0 && !state.waiting.isEmpty {
                let moved = min(room, state.waiting.count)
                state.ready.append(contentsOf: state.waiting.prefix(moved))
                state.waiting.removeFirst(moved)
            }
            return batch
        }
    }
}
