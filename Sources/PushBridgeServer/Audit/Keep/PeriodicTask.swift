import Synchronization

/// Runs some work now and then again every interval on a ``DeliveryClock`` (tests move a
/// ``ManualDeliveryClock`` instead of waiting), until stopped.
public final class PeriodicTask: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts at once: `work` runs, then the task sleeps `interval` on `clock`, and so on.
    public init(every interval: Duration, clock: any DeliveryClock, _ work: @escaping @Sendable () async -> Void) {
        let milliseconds = Int64(interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        task.withLock { task in
            task = Task {
                while !Task.isCancelled {
                    await work()
                    do { try await clock.sleep(untilMilliseconds: clock.nowMilliseconds() + milliseconds) } catch { return }
                }
            }
        }
    }

    /// Cancels the task and waits for the run in progress (if any) to end.
    public func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }
}
