import Dispatch
import Foundation
import Synchronization

/// Races work that reports through a callback against a deadline, on one timer thread shared
/// by every request, instead of a timer task and a worker task per request.
///
/// ``race(until:_:)`` suspends the caller once; whichever comes first resumes it: the work's
/// callback (on whatever thread the work finishes, the audit writer's for a completion) or the
/// timer thread at the deadline. Work that loses the race runs on and its late answer is
/// ignored. A won race only removes its entry under a lock: the timer thread is not woken.
///
/// Why `@unchecked Sendable` is sound: the mutable part is in a `Mutex`; the semaphore is
/// thread-safe by contract.
final class DeadlineRace: @unchecked Sendable {
    private struct State {
        /// Deadlines by due time (a binary min-heap of `(due, id)`); ids whose race is decided
        /// stay until they reach the front and are dropped there.
        var heap: [(due: ContinuousClock.Instant, id: UInt64)] = []
        /// The undecided races: what the timer does when one is due.
        var pending: [UInt64: @Sendable () -> Void] = [:]
        var nextId: UInt64 = 0
        /// The due time the thread sleeps until; nil while it sleeps without a timeout.
        var sleepingUntil: ContinuousClock.Instant?
        var idle = false
    }

    /// The resumption of one race: the first call wins.
    private final class Once: Sendable {
        private let continuation: Mutex<CheckedContinuation<Bool, Never>?>
        init(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation = Mutex(continuation) }
        func resume(_ value: Bool) { continuation.withLock { $0.take() }?.resume(returning: value) }
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// The process's one race thread, started on first use and never stopped.
    static let shared = DeadlineRace()

    /// Starts the timer thread.
    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "pushbridge-deadline-race"
        thread.start()
    }

    /// `start`'s reported result, or false if `deadline` passes first. `start` is called once,
    /// at once, with the callback the work calls when it is done.
    func race(until deadline: ContinuousClock.Instant, _ start: (@escaping @Sendable (Bool) -> Void) -> Void) async -> Bool {
        await withCheckedContinuation { continuation in
            let once = Once(continuation)
            let id = add(deadline) { once.resume(false) }
            start { [self] result in
                once.resume(result)
                state.withLock { _ = $0.pending.removeValue(forKey: id) }
            }
        }
    }

    private func add(_ due: ContinuousClock.Instant, _ expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, wakeThread) = state.withLock { state -> (UInt64, Bool) in
            state.nextId += 1
            state.pending[state.nextId] = expire
            Self.push(&state.heap, (due, state.nextId))
            let earlier = state.idle || (state.sleepingUntil.map { due < $0 } ?? false)
            if earlier { state.idle = false; state.sleepingUntil = nil }
            return (state.nextId, earlier)
        }
        if wakeThread { wake.signal() }
        return id
    }

    private func run() {
        while true {
            let now = ContinuousClock.now
            let (expired, next) = state.withLock { state -> ([@Sendable () -> Void], ContinuousClock.Instant?) in
                var expired: [@Sendable () -> Void] = []
                while let front = state.heap.first {
                    if let expire = state.pending[front.id] {
                        guard front.due <= now else { break }
                        state.pending[front.id] = nil
                        expired.append(expire)
                    }
                    Self.popFront(&state.heap)
                }
                state.sleepingUntil = state.heap.first?.due
                state.idle = state.heap.isEmpty
                return (expired, state.sleepingUntil)
            }
            for expire in expired { expire() }
            if let next {
                let wait = now.duration(to: next)
                let (seconds, attoseconds) = wait.components
                let nanoseconds = max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
            } else {
                wake.wait()
            }
        }
    }

    private static func push(_ heap: inout [(due: ContinuousClock.Instant, id: UInt64)], _ entry: (due: ContinuousClock.Instant, id: UInt64)) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func popFront(_ heap: inout [(due: ContinuousClock.Instant, id: UInt64)]) {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count && heap[right].due < heap[smallest].due { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
