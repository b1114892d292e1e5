import Dispatch
import Foundation
import Synchronization

/// The audit's one writer loop, over either engine (``AuditWriteEngine``: SQLite or PostgreSQL): one
/// thread that owns the engine, with the bounded queue in front of it. It takes what has
/// queued as one batch, writes it in one transaction (group commit), rolls back and rewrites a
/// batch one operation aborted, and answers every caller once its commit is durable.
///
/// At low load an event loop that has nothing else to do and finds the writer asleep with
/// nothing queued commits its operation itself (``commitHere(_:on:)``, `AuditWriter+Loop.swift`), with the same engine,
/// under the same one-batch-at-a-time rule (``State/committing``).
///
/// Why `@unchecked Sendable` is sound: callers on any thread, and the SQLite syncer's
/// thread, touch only `state` (a `Mutex`), the semaphore (thread-safe by contract) and the
/// immutable `configuration`. The engine — the connection and its prepared statements — is
/// created and released on the writer thread, inside `run`; it is used only by whoever set
/// ``State/committing`` (the writer thread, or a loop committing its lone operation), one at a
/// time, each handing it on through `state`'s lock. ``engine`` and ``loopCommitLimit`` are set
/// before the writer reports itself open, and ``engine`` cleared only after the last batch.
final class AuditWriter: @unchecked Sendable {
    struct State {
        var ready: [AuditOperation] = []
        /// Callers that found the queue full, in arrival order (each is suspended).
        var waiting: [AuditOperation] = []
        /// Background work (retention's deletes), in arrival order: each runs in a transaction
        /// of its own, when no request operation is queued or after
        /// ``AuditStoreConfiguration/backgroundYieldBatches`` request batches went first.
        var background: [AuditOperation] = []
        /// A batch holds the engine: taken by the writer thread in ``nextBatch()``, or by a loop
        /// committing its own operation (``submit(_:)``); given back once it is acknowledged
        /// or handed to the syncer.
        var committing = false
        /// The last transaction was quick, alone in its batch and succeeded (see
        /// ``AuditStoreConfiguration/loopCommitLimit``).
        var lastWriteQuick = true
        /// Request batches taken while background work waited, since the last one ran.
        var batchesAheadOfBackground = 0
        var closing = false
        var sleeping = false
        var closed = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        /// Why the WAL checkpoint at close did not complete (SQLite), if it did not.
        var checkpointFailure: String?
        var statistics = AuditStatistics()
        /// A commit of carried rollups failed: this instance's counters are owed a recount
        /// from the log from this received time on (``AuditWriter/settleRollupRecount(_:)``).
        var rollupRecountFrom: Int64?
    }

    let configuration: AuditStoreConfiguration
    let state = Mutex(State())
    /// The open intents the rollups count completions under; used on the writer thread only.
    var rollupIntents = AuditRollupIntents()
    /// The fold each batch is counted in, reset and reused (its room and interned strings
    /// kept); used on the writer thread only.
    var rollupFold = AuditRollupFold()
    /// Whether ``rollupFold`` holds counters of earlier batches not written yet; used on the
    /// writer thread only.
    var rollupCarry = AuditRollupCarry()
    /// Where commits are in order (SQLite): whether the writer carries counters, for readers in
    /// this process that must read exact rollups (``writeCarriedRollupsFirst()``).
    let rollupBarrier = AuditRollupBarrier()
    /// The SQLite audit's file this writer is registered as (``AuditRollupBarrier/registered(at:)``);
    /// set and read on the writer thread.
    var barrierFile: AuditRollupBarrier.FileIdentity?
    let wake = DispatchSemaphore(value: 0)
    /// The engine, for a loop committing its own operation while it holds
    /// ``State/committing``; nil before the writer opened it and after it closed it.
    var engine: (any AuditWriteEngine)?
    /// ``AuditStoreConfiguration/loopCommitLimit`` when the engine commits locally, else nil.
    var loopCommitLimit: Duration?
    /// The engine's ``AuditWriteEngine/idleForCallers``, when ``loopCommitLimit`` is set.
    var engineIdle: (@Sendable () -> Bool)?

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
            // Opened, so the file exists; without its identity, readers in this process read what is committed, as others do.
            if let file = AuditRollupBarrier.FileIdentity(path: path) {
                writer.barrierFile = file
                AuditRollupBarrier.register(writer, as: file)
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
    /// row is never dropped). Fails it at once when the store is closing. On an event loop that
    /// has nothing else to do and finds the writer asleep with nothing queued, commits it here
    /// instead (``commitHere(_:on:)``).
    func submit(_ operation: AuditOperation) {
        let capacity = configuration.queueCapacity
        let onLoop = loopMayCommit()
        let (taken, wakeWriter) = state.withLock { state -> (Submission, Bool) in
            guard !state.closing else { return (.refused, false) }
            if onLoop && state.idleForLoop(operation) {
                state.committing = true
                return (.here, false)
            }
            if operation.work.isBackground {
                state.background.append(operation)
            } else if state.ready.count < capacity && state.waiting.isEmpty {
                state.ready.append(operation)
            } else {
                state.waiting.append(operation)
                state.statistics.waitedForRoom += 1
            }
            defer { state.sleeping = false }
            return (.queued, state.sleeping)
        }
        if wakeWriter { wake.signal() }
        switch taken {
        case .refused: operation.reply(.failure(AuditError.closed))
        case .here: commitHere(operation, on: engine)
        case .queued: break
        }
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
            self.engine = engine
            engineIdle = configuration.loopCommitLimit == nil ? nil : engine.idleForCallers
            loopCommitLimit = engineIdle == nil ? nil : configuration.loopCommitLimit
            opened(.success(recovered))
            drive(engine)
            if let barrierFile { AuditRollupBarrier.unregister(self, as: barrierFile) }
            rollupBarrier.carryEnded()
            failure = engine.close()
            self.engine = nil
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
            guard let batch = nextBatch() else {
                flushCarriedRollups(engine)
                return
            }
            if batch.isEmpty {
                // Nothing queued: counters carried through the busy moment are written now
                // (PostgreSQL), or once the writer stayed idle (SQLite, ``idleWait(_:)``).
                if flushCarriedRollups(engine) { continue }
                idleWait(engine)
                continue
            }
            writeCarriedRollups(before: batch, on: engine)
            let committed = write(batch, on: engine)
            let alone = state.withLock { $0.ready.isEmpty && $0.waiting.isEmpty }
            if !engine.handOff(committed, alone: alone) { acknowledge(committed, durabilityError: nil) }
            batchDone()
        }
    }

    /// Gives the engine back after a batch ``nextBatch()`` took (``State/committing``).
    func batchDone() {
        state.withLock { $0.committing = false }
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
    /// ``State/background``), taking the engine (``State/committing``); `[]` after marking the
    /// thread asleep when there are none, or while a loop commits (it wakes the thread when it
    /// is done, if anything queued meanwhile); nil when closing and everything is written.
    func nextBatch() -> [AuditOperation]? {
        let capacity = configuration.queueCapacity
        let maximum = max(1, configuration.maxBatchSize)
        let yieldBatches = max(0, configuration.backgroundYieldBatches)
        return state.withLock { state -> [AuditOperation]? in
            if state.committing {
                state.sleeping = true
                return []
            }
            let requestsQueued = !(state.ready.isEmpty && state.waiting.isEmpty)
            if !state.background.isEmpty && (!requestsQueued || state.batchesAheadOfBackground >= yieldBatches) {
                state.batchesAheadOfBackground = 0
                state.committing = true
                return [state.background.removeFirst()]
            }
            if !requestsQueued {
                if state.closing { return nil }
                state.sleeping = true
                return []
            }
            if !state.background.isEmpty { state.batchesAheadOfBackground += 1 }
            state.committing = true
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
