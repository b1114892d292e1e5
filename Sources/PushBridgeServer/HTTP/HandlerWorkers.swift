import Synchronization

/// The handler tasks of one server, kept between requests (issue 31): a task that ran a
/// request's handler and answered it waits on its loop for the next request there, instead of
/// ending and a new task being made for the next. A new task was five allocations a request
/// (the task, its closure's context, the future's parts), and the slabs of its async frames
/// another five to ten (the concurrency runtime keeps a task's slabs until the task ends, so a
/// kept task reuses them).
///
/// A worker is counted by ``ServerTasks`` only while it runs a request (``HTTPServerCore``
/// registers it for each one), so a server's running tasks are what they were. A worker goes
/// on to another request only when its handler's answer is the one sent and nothing cancelled
/// it: a request the server answered itself (a deadline, a stop, a closed connection) may have
/// taken the worker's handle to cancel it, so its worker ends after it, as the request's own
/// task did. ``close()`` (a stop) ends the waiting workers and every worker that finishes after.
final class HandlerWorkers: Sendable {
    /// One request handed to a worker.
    struct Job: Sendable {
        /// The request, as the handler gets it.
        let request: HTTPRequest
        /// Its exchange, which the handler's answer finishes.
        let exchange: HTTPExchange
        /// Its registration with ``ServerTasks`` (``ServerTasks/register()``).
        let id: UInt64
    }

    /// One kept task. Its mutable fields are read and written only under the pool's lock.
    private final class Worker: @unchecked Sendable {
        /// The loop the task runs on (held: a worker is handed only its own loop's requests).
        let loop: EventLoop
        /// The task, set once it is made.
        var task: Task<Void, Never>?
        /// Set while the worker waits for a request.
        var waiting: UnsafeContinuation<Job?, Never>?
        /// The job the worker was made for, until its task takes it (not captured by the task's
        /// closure, which would hold its request for the task's whole life).
        var first: Job?

        init(loop: EventLoop, first: Job) {
            self.loop = loop
            self.first = first
        }
    }

    private struct State {
        /// The waiting workers of every loop, in the order they began to wait (one array, not
        /// one a loop in a dictionary: taking one out of a dictionary's array allocated).
        var idle: [Worker] = []

        /// How many of ``idle`` wait on `loop`.
        func waiting(on loop: EventLoop) -> Int {
            var count = 0
            for worker in idle where worker.loop === loop { count += 1 }
            return count
        }
        /// ``close()`` ran: no worker waits any more.
        var closed = false
    }

    private let state = Mutex(State())
    /// At most this many workers wait on one loop; one finishing past it ends.
    let idleLimit: Int

    /// A pool keeping at most `idleLimit` waiting workers a loop.
    init(idleLimit: Int = 64) {
        self.idleLimit = idleLimit
    }

    /// Workers waiting for a request, on every loop.
    var waiting: Int { state.withLock { $0.idle.count } }

    /// Runs `job` on a worker of `loop`, the calling thread's: one waiting there, or a new one
    /// that runs `run` for it and for every later job it is given while `run` returns true and
    /// it is not cancelled. Returns the worker's task. Call from `loop`'s thread.
    func run(_ job: Job, on loop: EventLoop, _ run: @escaping @Sendable (Job) async -> Bool) -> Task<Void, Never> {
        let woken = state.withLock { state -> (UnsafeContinuation<Job?, Never>, Task<Void, Never>)? in
            guard let index = state.idle.lastIndex(where: { $0.loop === loop }) else { return nil }
            let worker = state.idle.remove(at: index)
            guard let waiting = worker.waiting, let task = worker.task else { return nil }
            worker.waiting = nil
            return (waiting, task)
        }
        if let (waiting, task) = woken {
            waiting.resume(returning: job)
            return task
        }
        let worker = Worker(loop: loop, first: job)
        let task = EventLoop.spawn { [self] in
            var next = state.withLock { _ in worker.first.take() }
            while next != nil {
                guard await Self.runTaken(&next, run), !Task.isCancelled else { break }
                next = await wait(worker)
            }
        }
        state.withLock { _ in worker.task = task }
        return task
    }

    /// `run` of the job taken out of `next`: the job is let go when `run` returns, so a worker
    /// waiting for its next request holds nothing of its last.
    private static func runTaken(_ next: inout Job?, _ run: (Job) async -> Bool) async -> Bool {
        guard let job = next.take() else { return false }
        return await run(job)
    }

    /// The next job for `worker`, or nil when it is to end: the pool is closed, its loop has
    /// `idleLimit` waiting already, or its task is cancelled (now or while it waits).
    private func wait(_ worker: Worker) async -> Job? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Job?, Never>) in
                let waits = state.withLock { state -> Bool in
                    guard !state.closed, !Task.isCancelled, state.waiting(on: worker.loop) < idleLimit else { return false }
                    worker.waiting = continuation
                    state.idle.append(worker)
                    return true
                }
                if !waits { continuation.resume(returning: nil) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> UnsafeContinuation<Job?, Never>? in
                guard let waiting = worker.waiting else { return nil }
                worker.waiting = nil
                state.idle.removeAll { $0 === worker }
                return waiting
            }
            waiting?.resume(returning: nil)
        }
    }

    /// Ends every waiting worker, and every worker that finishes a request from now on.
    func close() {
        let waiting = state.withLock { state -> [UnsafeContinuation<Job?, Never>] in
            state.closed = true
            defer { state.idle = [] }
            return state.idle.compactMap { worker in
                defer { worker.waiting = nil }
                return worker.waiting
            }
        }
        for continuation in waiting { continuation.resume(returning: nil) }
    }
}
