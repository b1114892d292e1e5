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
    /// The resumption of one race: the first call wins.
    private final class Once: Sendable {
        private let continuation: Mutex<CheckedContinuation<Bool, Never>?>
        init(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation = Mutex(continuation) }
        func resume(_ value: Bool) { continuation.withLock { $0.take() }?.resume(returning: value) }
    }

    /// The process's one race (it keeps no state of its own).
    static let shared = DeadlineRace()

    private init() {}

    /// `start`'s reported result, or false if `deadline` passes first. `start` is called once,
    /// at once, with the callback the work calls when it is done.
    func race(until deadline: ContinuousClock.Instant, _ start: (@escaping @Sendable (Bool) -> Void) -> Void) async -> Bool {
        await withCheckedContinuation { continuation in
            let once = Once(continuation)
            let timer = EventLoop.schedule(at: deadline) { once.resume(false) }
            start { result in
                // The timer goes first: the caller, once resumed, finds no timer of its race left.
                timer.cancel()
                once.resume(result)
            }
        }
    }
}
