import Dispatch
import Foundation
import Synchronization

/// Whether PostgreSQL answers, checked with `SELECT 1` every interval on a thread of its own
/// (a dead server can take a connect timeout to say so; no request or `/healthz` waits for
/// it). `/healthz` reads ``isReachable``; the pool reconnects by itself once the server is
/// back, and the next probe says so.
public final class PostgresProbe: Sendable {
    private let reachable = Atomic<Bool>(true)
    private let stopped = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)

    /// Starts probing `pool` every `interval` (the first probe at once).
    public init(pool: PostgresPool, every interval: Duration = .seconds(1)) {
        let milliseconds = Int(interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        // The thread holds the probe until ``stop()``, which its owner calls.
        let thread = Thread(named: "pb-pg-probe") { [self] in
            while !stopped.load(ordering: .acquiring) {
                let answered = (try? pool.withSQL { try $0.select("SELECT 1", []).count }) == 1
                reachable.store(answered, ordering: .releasing)
                _ = wake.wait(timeout: .now() + .milliseconds(max(10, milliseconds)))
            }
        }
        thread.start()
    }

    /// Whether the last probe got an answer.
    public var isReachable: Bool { reachable.load(ordering: .acquiring) }

    /// Ends the probing thread after its current probe.
    public func stop() {
        if !stopped.exchange(true, ordering: .acquiringAndReleasing) { wake.signal() }
    }
}
