import Synchronization

/// The shape the audit's background upkeep shares (``AuditRetention``,
/// ``ActivityLedgerUpkeep``): a pass now and then one every interval on a clock until stopped,
/// each deleting small batches with rests between them.
final class BackgroundPasses: Sendable {
    private let task = Mutex<PeriodicTask?>(nil)

    /// Runs `pass` now and then every `interval` on `clock`, until ``stop()``. A failing pass
    /// is reported through `onFailure` (unless the passes were stopped) and retried at the next
    /// interval.
    func start(every interval: Duration, clock: any DeliveryClock, onFailure: @escaping @Sendable (any Error) -> Void,
               _ pass: @escaping @Sendable () async throws -> Void) {
        let loop = PeriodicTask(every: interval, clock: clock) {
            do { try await pass() } catch { if !Task.isCancelled { onFailure(error) } }
        }
        task.withLock { $0 = loop }
    }

    /// Stops the passes (a batch being deleted finishes).
    func stop() async {
        await task.withLock { $0 }?.stop()
    }

    /// Deletes the batches `next` picks (told how many rows went so far) with `delete`, until a
    /// batch comes back empty or shorter than `batchSize`; between batches it rests
    /// `restFactor` times as long as the last one took, so requests keep most of the writer.
    /// The same batch twice means it could not be deleted: the pass stops rather than spin.
    /// Returns how many rows the batches held.
    static func deleteInBatches<Batch: Collection & Equatable>(batchSize: Int, restFactor: Int, next: (Int) throws -> Batch,
                                                               delete: (Batch) async throws -> Void) async throws -> Int {
        var total = 0
        var previous: Batch?
        var batch = try next(0)
        while !Task.isCancelled && !batch.isEmpty && batch != previous {
            previous = batch
            let started = ContinuousClock.now
            try await delete(batch)
            let took = ContinuousClock.now - started
            total += batch.count
            if batch.count < batchSize { break }
            // The next batch is picked before the rest, so a pass that has deleted everything
            // ends at once instead of resting first.
            batch = try next(total)
            if batch.isEmpty { break }
            try await Task.sleep(for: took * restFactor)
        }
        return total
    }
}
