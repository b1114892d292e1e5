import Synchronization

/// A gate async code waits at until the test opens it: a held upstream answer, a held shadow,
/// released on a condition the test has seen instead of after a fixed sleep. Once open, it stays open.
final class AsyncGate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Suspends until ``open()`` (returns at once when already open).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Opens the gate and resumes every waiter.
    func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
