import Dispatch

extension ScheduledStartStore {
    /// One serial queue for the store's commits made on behalf of a request.
    private static let commits = DispatchQueue(label: "pushbridge-scheduled-store")

    /// ``insert(_:now:)`` run on the store's own queue: its fsync'd commit (`synchronous=FULL`)
    /// never holds one of the cooperative pool's few threads, which every other request needs.
    public func insertOffPool(_ starts: [ScheduledStart], now: Int64) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Self.commits.async {
                continuation.resume(with: Result { try self.insert(starts, now: now) })
            }
        }
    }
}
