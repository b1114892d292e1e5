import Synchronization

/// Every Swift task the HTTP server starts — the handlers, the answers it records through its
/// exit (a deadline, a drain, a stop, a refusal), the records of libmicrohttpd's own refusals,
/// the retirement of daemons a certificate replacement quiesced — registered from its start to
/// its end, so that ``HTTPServer/stop(gracePeriod:)`` can cancel the ones left and wait for
/// them: a stopped server leaves no task of its own running.
final class ServerTasks: Sendable {
    private struct State {
        var next: UInt64 = 0
        /// Tasks started and not yet ended, with their handle once ``spawn(_:)`` has it.
        var live: [UInt64: Task<Void, Never>?] = [:]
        /// Callers of ``ended(within:)`` waiting for ``live`` to empty, by id.
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        /// ``cancelAll()`` ran: a task started from now on is cancelled at once.
        var cancelling = false
    }

    private let state = Mutex(State())

    /// Tasks started and not yet ended.
    var running: Int { state.withLock { $0.live.count } }

    /// Starts `work` as a task on the calling thread's loop (``EventLoop/spawn(_:)``) and
    /// tracks it until it ends. Returns its handle (to cancel it when its answer is decided).
    @discardableResult
    func spawn(_ work: sending @escaping () async -> Void) -> Task<Void, Never> {
        let id = register()
        return hold(EventLoop.spawn { [self] in
            await work()
            ended(id)
        }, id: id)
    }

    /// Counts a task about to start and returns its id: the task calls ``ended(_:)`` with it
    /// last, and its handle is given to ``hold(_:id:)`` once it is made. What ``spawn(_:)``
    /// does around its work; a caller that writes its task's body itself (the handler's,
    /// ``HTTPServerCore``) calls them directly, so that the body is the task's only closure
    /// (wrapping it in another was one more allocation per request).
    func register() -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            state.live[state.next] = .some(nil)
            return state.next
        }
    }

    /// Keeps the handle of the task ``register()`` numbered `id` (cancelled at once if
    /// ``cancelAll()`` ran meanwhile). Returns it.
    @discardableResult
    func hold(_ task: Task<Void, Never>, id: UInt64) -> Task<Void, Never> {
        let cancel = state.withLock { state in
            if state.live[id] != nil { state.live[id] = .some(task) }
            return state.cancelling
        }
        if cancel { task.cancel() }
        return task
    }

    /// Cancels every task still running (cancellation is cooperative: each ends at its next
    /// cancellation point), and every task started later.
    func cancelAll() {
        let tasks = state.withLock { state in
            state.cancelling = true
            return state.live.values.compactMap { $0 }
        }
        for task in tasks { task.cancel() }
    }

    /// Returns true once no task runs, false if some still do after `limit`. Waits without
    /// polling: the last task to end, or a timer at `limit`, resumes the caller.
    func ended(within limit: Duration) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiter = state.withLock { state -> UInt64? in
                if state.live.isEmpty { return nil }
                defer { state.next += 1 }
                state.waiters[state.next] = continuation
                return state.next
            }
            guard let waiter else { return continuation.resume(returning: true) }
            _ = EventLoop.schedule(at: .now.advanced(by: limit)) { [self] in
                state.withLock { $0.waiters.removeValue(forKey: waiter) }?.resume(returning: false)
            }
        }
    }

    /// The task `id` (``register()``) ended: forget it; wake the waiters when none is left.
    func ended(_ id: UInt64) {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.live[id] = nil
            guard state.live.isEmpty else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }
}
