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
