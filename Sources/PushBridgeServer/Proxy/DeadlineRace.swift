import Synchronization

/// Races work that reports through a callback against a deadline, with one timer per race on
/// the caller's event loop (``EventLoop/schedule(at:_:)``; the ``TimerThread`` for a caller on
/// no loop), instead of a timer task and a worker task per request.
///
/// ``race(until:_:)`` suspends the caller once; whichever comes first resumes it: the work's
/// callback (on whatever thread the work finishes, the audit writer's for a completion) or the
/// timer at the deadline. Work that loses the race runs on and its late answer is ignored. A
/// won race only cancels its timer under a lock: no thread is woken for it.
final class DeadlineRace: Sendable {
    /// The resumption of one race: the first call wins. It holds the race's timer too, so the
    /// work's callback captures it alone (a closure capturing one object needs no context of
    /// its own: the timer and the resumption captured together were one allocation a race).
    private final class Once: Sendable {
        private let state: Mutex<(continuation: CheckedContinuation<Bool, Never>?, timer: LoopTimer?)>
        init(_ continuation: CheckedContinuation<Bool, Never>) { state = Mutex((continuation, nil)) }

        /// Keeps the race's timer for ``finish(_:)``.
        func hold(_ timer: LoopTimer) { state.withLock { $0.timer = timer } }

        /// Resumes the caller with `value` if nothing did yet.
        func resume(_ value: Bool) { state.withLock { $0.continuation.take() }?.resume(returning: value) }

        /// The work's result: cancels the timer first (the caller, once resumed, finds no timer
        /// of its race left), then resumes the caller with `value` if the timer did not yet.
        func finish(_ value: Bool) {
            state.withLock { $0.timer.take() }?.cancel()
            resume(value)
        }
    }

    /// The process's one race (it keeps no state of its own).
    static let shared = DeadlineRace()

    private init() {}

    /// `start`'s reported result, or false if `deadline` passes first. `start` is called once,
    /// at once, with the callback the work calls when it is done.
    func race(until deadline: ContinuousClock.Instant, _ start: (@escaping @Sendable (Bool) -> Void) -> Void) async -> Bool {
        await withCheckedContinuation { continuation in
            let once = Once(continuation)
            once.hold(EventLoop.schedule(at: deadline) { once.resume(false) })
            start { result in once.finish(result) }
        }
    }
}
