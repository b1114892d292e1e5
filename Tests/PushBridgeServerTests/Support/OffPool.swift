import Foundation

/// Runs blocking work (a child process, a blocking socket) on its own thread, so it never holds
/// one of the few threads of Swift's cooperative pool that the servers under test need.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// Runs `body(0)` … `body(count - 1)` each on a thread of its own, all at once (unlike
/// `DispatchQueue.concurrentPerform`, which runs no more at a time than there are cores), and
/// returns when all have finished.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            body(index)
            done.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    done.wait()
}
