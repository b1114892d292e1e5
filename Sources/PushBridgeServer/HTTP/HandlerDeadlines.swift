import Dispatch
import Foundation
import Synchronization

/// One thread that holds every running handler to the server's deadline, instead of one timer
/// task per request.
///
/// Every request gets the same deadline, so requests are due in the order they were
/// dispatched: the watch list is a FIFO, and the thread only ever looks at its front. It sleeps
/// until the front is due (at most ``sweepInterval``, so answered requests leave the list
/// promptly), answers each overdue request that is still undecided through `expire` (which may
/// ask to watch it for one more deadline), and sleeps without a timeout when the list is empty.
///
/// Why `@unchecked Sendable` is sound: the mutable part is in a `Mutex`; the semaphore is
/// thread-safe by contract; `deadline`, `expire` are immutable.
final class HandlerDeadlines: @unchecked Sendable {
    private struct Entry {
        let due: ContinuousClock.Instant
        let exchange: HTTPExchange
    }

    private struct State {
        var entries: [Entry] = []
        /// Index of the front entry in `entries` (the ones before it are done).
        var head = 0
        var idle = false
        var stopped = false
    }

    /// How long a handler may run.
    let deadline: Duration
    /// The longest the thread sleeps while requests are watched.
    static let sweepInterval: Duration = .milliseconds(50)
    /// Past this many watched requests behind a front that is not due, the list is swept whole.
    static let compactThreshold = 1024

    private let expire: @Sendable (HTTPExchange) -> Bool
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the thread; `expire` is called on it for each request past `deadline`, and
    /// returns whether to watch that request for another `deadline` from now.
    init(deadline: Duration, expire: @escaping @Sendable (HTTPExchange) -> Bool) {
        self.deadline = deadline
        self.expire = expire
        let thread = Thread { [self] in run() }
        thread.name = "pushbridge-deadlines"
        thread.start()
    }

    /// Watches `exchange` from now: if it is not answered within ``deadline``, `expire` gets it.
    func watch(_ exchange: HTTPExchange) {
        let due = ContinuousClock.now.advanced(by: deadline)
        let wakeThread = state.withLock { state -> Bool in
            state.entries.append(Entry(due: due, exchange: exchange))
            defer { state.idle = false }
            return state.idle
        }
        if wakeThread { wake.signal() }
    }

    /// Stops the thread (requests still watched are no longer held to the deadline).
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.entries = []
            state.head = 0
            state.idle = false
        }
        // Wakes a timed sleep too; the thread then sees `stopped` and ends.
        wake.signal()
    }

    private func run() {
        while true {
            let now = ContinuousClock.now
            let (expired, next, stopped) = state.withLock { state -> ([HTTPExchange], ContinuousClock.Instant?, Bool) in
                if state.stopped { return ([], nil, true) }
                var expired: [HTTPExchange] = []
                while state.head < state.entries.count {
                    let entry = state.entries[state.head]
                    if entry.exchange.isDecided {
                        state.head += 1
                    } else if entry.due <= now {
                        expired.append(entry.exchange)
                        state.head += 1
                    } else {
                        break
                    }
                }
                if state.head == state.entries.count {
                    state.entries.removeAll(keepingCapacity: state.entries.count <= 4096)
                    state.head = 0
                    state.idle = true
                    return (expired, nil, false)
                }
                if state.head > 0 && (state.head >= state.entries.count / 2 || state.entries.count - state.head > Self.compactThreshold) {
                    // Drop what is done; behind a slow front, also the answered ones further back.
                    let live = state.entries[state.head...].filter { !$0.exchange.isDecided }
                    state.entries = Array(live)
                    state.head = 0
                    if state.entries.isEmpty { state.idle = true; return (expired, nil, false) }
                }
                return (expired, state.entries[state.head].due, false)
            }
            for exchange in expired where expire(exchange) { watch(exchange) }
            if stopped { return }
            if let next {
                let wait = min(next - ContinuousClock.now, Self.sweepInterval)
                if wait > .zero {
                    let c = wait.components
                    let nanoseconds = Int(c.seconds) * 1_000_000_000 + Int(c.attoseconds / 1_000_000_000) + 1
                    _ = wake.wait(timeout: .now() + .nanoseconds(nanoseconds))
                }
            } else {
                wake.wait()
            }
        }
    }
}
