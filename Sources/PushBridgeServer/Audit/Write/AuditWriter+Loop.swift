/// An event loop committing its own operation when the writer is idle (flat combining at low
/// load).
///
/// At one connection nothing can be grouped: every operation is a batch alone. Through the
/// writer thread each costs two hand-offs, the loop waking the writer (a futex) and the writer
/// waking the parked loop back with the acknowledgement (the eventfd), on top of the commit
/// itself, and each hand-off is a context switch of the thread woken and its wake-up latency.
/// A loop that finds the writer asleep with nothing queued runs the same transaction, the same
/// sync and the same acknowledgement on its own thread instead, holding the engine as the
/// writer thread would (``AuditWriter/State/committing``). The durability argument is
/// unchanged: the caller is resumed by ``AuditWriter/acknowledge(_:durabilityError:)`` only after
/// its commit is durable (the syncer's `fdatasync`, here run on the loop through
/// ``AuditSyncer/synchronizeHereIfIdle(_:)``, or a `synchronous=FULL` commit).
///
/// Group commit is untouched: a loop commits alone only when nothing else is queued, no sync is
/// in flight and the writer's last batch was a single operation (a batch of several says there
/// is load: at 64 connections loops that still committed alone now and then lost 0.84× of the
/// requests per second); whatever
/// arrives meanwhile (another loop's operations) queues for the writer thread, which the loop
/// wakes when it gives the engine back. And only when the loop has nothing else to do
/// (``EventLoop/hasNothingElseToDo``: no other request in flight on it, no other job, none of its
/// descriptors ready): a loop blocked in `fdatasync` holds up every connection it serves, which
/// cost 16 connections 5–15 % of their requests per second when loops committed regardless
/// (docs/benchmarks.md, "Loop commits when the loop is idle"). And only while the loop's thread
/// gets a CPU when it wants one (``EventLoop/hasCPUToSpare``). A slow or failed transaction
/// (a file another process locked, a stalling disk) turns this off until the writer thread
/// commits quickly again (``AuditStoreConfiguration/loopCommitLimit``, which also turns this on).
extension AuditWriter {
    /// Where ``submit(_:)`` put an operation.
    enum Submission {
        /// Refused: the store is closing.
        case refused
        /// Queued for the writer thread (or waiting for room).
        case queued
        /// The caller, a loop, commits it now (``commitHere(_:on:)``).
        case here
    }

    /// Whether the calling thread is an event loop that may commit its own operation, as far as
    /// the engine and the loop go (the writer's side is ``State/idleForLoop(_:)``): loop commits
    /// are on, the engine has no sync in flight (under load the syncer is busy, and a loop would
    /// wait behind its sync), and the loop has nothing else to do
    /// (``EventLoop/hasNothingElseToDo``: a loop serving other requests would hold them up
    /// through its commit), and its thread gets a CPU when it wants one
    /// (``EventLoop/hasCPUToSpare``, unless ``AuditStoreConfiguration/loopCommitNeedsSpareCPU``
    /// is off: on a saturated CPU the request waits less with its work split between the loop
    /// and the writer thread). Under load the loop's first check (more than one request in
    /// flight, an atomic load) answers before the syncer's lock is taken.
    func loopMayCommit() -> Bool {
        guard loopCommitLimit != nil, let loop = EventLoop.current else { return false }
        return loop.hasNothingElseToDo && engineIdle?() == true
            && (!configuration.loopCommitNeedsSpareCPU || loop.hasCPUToSpare)
    }

    /// Runs `operation` as a batch alone on the calling loop, with `engine`, then gives the
    /// engine back and wakes the writer thread if anything queued meanwhile. The caller set
    /// ``State/committing`` (``State/idleForLoop(_:)``).
    func commitHere(_ operation: AuditOperation, on engine: (any AuditWriteEngine)?) {
        if let engine {
            engine.waitForRoom()
            let committed = write([operation], on: engine)
            if !engine.handOff(committed, alone: true) { acknowledge(committed, durabilityError: nil) }
        } else {
            operation.reply(.failure(AuditError.closed))
        }
        let wakeWriter = state.withLock { state -> Bool in
            state.committing = false
            state.statistics.committedOnLoops += 1
            let work = state.closing || !(state.ready.isEmpty && state.waiting.isEmpty && state.background.isEmpty)
            guard work && state.sleeping else { return false }
            state.sleeping = false
            return true
        }
        if wakeWriter { wake.signal() }
    }
}

extension AuditWriter.State {
    /// Whether a loop may commit `operation` itself: a request's operation, the writer asleep
    /// with no batch in hand and nothing queued, and the last transaction quick.
    func idleForLoop(_ operation: AuditOperation) -> Bool {
        !operation.work.isBackground && sleeping && !committing && lastWriteQuick
            && ready.isEmpty && waiting.isEmpty && background.isEmpty
    }
}
