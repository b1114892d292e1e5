import Dispatch

/// One serial queue for the stores' commits made on behalf of a request.
private let scheduledStoreCommits = DispatchQueue(label: "pushbridge-scheduled-store")

extension ScheduledStartStoring {
    /// ``insert(_:now:)`` run on the store's own queue: its fsync'd commit (`synchronous=FULL`, or a round trip to PostgreSQL)
    /// never holds one of the cooperative pool's few threads, which every other request needs.
    public func insertOffPool(_ starts: [ScheduledStart], now: Int64) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            scheduledStoreCommits.async {
                continuation.resume(with: Result { try self.insert(starts, now: now) })
            }
        }
    }
}
