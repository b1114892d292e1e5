import Dispatch
import Foundation
import Synchronization

/// The process's one timer thread, for timers set on no event loop (a task on the cooperative
/// pool, the CLI, tests) and for those of a loop that stopped before they were due
/// (``EventLoop/schedule(at:_:)`` picks it). Started on first use, never stopped; a process
/// whose timers are all set on loops never starts it.
///
/// Cancelling only removes the entry under the lock: the thread is not woken. Scheduling wakes
/// it only when the new timer is due before the one it sleeps until.
///
/// Why `@unchecked Sendable` is sound: the mutable part is in a `Mutex`; the semaphore is
/// thread-safe by contract.
final class TimerThread: @unchecked Sendable {
    private struct State {
        var timers = DeadlineHeap()
        /// The due time the thread sleeps until; nil while it sleeps without a timeout.
        var sleepingUntil: ContinuousClock.Instant?
        var idle = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// The process's timer thread.
    static let shared = TimerThread()

    private init() {
        let thread = Thread(named: "pb-timers") { [self] in run() }
        thread.start()
    }

    /// Runs `action` on the timer thread at `due`; returns its id for ``cancel(_:)``.
    func schedule(at due: ContinuousClock.Instant, _ action: @escaping DeadlineHeap.Action) -> UInt64 {
        let (id, wakeThread) = state.withLock { state -> (UInt64, Bool) in
            let id = state.timers.add(due, action)
            let earlier = state.idle || (state.sleepingUntil.map { due < $0 } ?? false)
            if earlier { state.idle = false; state.sleepingUntil = nil }
            return (id, earlier)
        }
        if wakeThread { wake.signal() }
        return id
    }

    /// Removes the timer `id` if it has not run.
    func cancel(_ id: UInt64) {
        state.withLock { $0.timers.cancel(id) }
    }

    private func run() {
        while true {
            let now = ContinuousClock.now
            let (due, next) = state.withLock { state -> ([DeadlineHeap.Action], ContinuousClock.Instant?) in
                let due = state.timers.takeDue(now)
                state.sleepingUntil = state.timers.nextDue()
                state.idle = state.sleepingUntil == nil
                return (due, state.sleepingUntil)
            }
            for action in due { action() }
            if let next {
                let (seconds, attoseconds) = now.duration(to: next).components
                let nanoseconds = max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
            } else {
                wake.wait()
            }
        }
    }
}
