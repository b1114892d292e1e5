import Synchronization

/// The background queue shadows run on: bounded, with a fixed number of workers, so a shadow
/// that stalls can never hold the primary's answer or grow without limit. When it is full, a
/// shadow is dropped and counted (`pushbridge_shadow_dropped_total`).
///
/// An OpenPush half paced by OpenPush's budget runs in its own lane (``submitPaced(_:)``): it
/// waits for a slot live sends do not need, at most `delivery.shadow_max_wait_ms`, without
/// holding a worker, so a saturated window never stalls the other shadows; the lane holds at
/// most `limit` shadows too (more are dropped and counted). One that gets no slot is skipped
/// and counted (``countSkipped()``).
public final class ShadowQueue: Sendable {
    /// One shadow's work.
    public typealias Work = @Sendable () async -> Void
    private struct State {
        var waiting: [Work] = []
        var head = 0
        var running = 0
    }
    private let state = Mutex(State())
    /// Shadows in the paced lane (waiting for a pacer slot or sending).
    private let paced = Mutex(0)
    private let limit: Int
    private let workers: Int
    private let metrics: Metrics

    /// A queue holding at most `limit` shadows (waiting and running), `workers` at a time.
    public init(limit: Int, workers: Int, metrics: Metrics) {
        self.limit = max(limit, 1)
        self.workers = max(workers, 1)
        self.metrics = metrics
    }

    /// Shadows waiting or running, both lanes.
    public var depth: Int { state.withLock { $0.waiting.count - $0.head + $0.running } + paced.withLock { $0 } }

    /// Counts one shadow skipped for want of a spare pacer slot (`pushbridge_shadow_skipped_total`).
    public func countSkipped() { metrics.recordShadowSkipped() }

    /// Queues `work`; false (and counted as dropped) when the queue is full.
    @discardableResult
    public func submit(_ work: @escaping Work) -> Bool {
        let (accepted, spawn): (Bool, Bool) = state.withLock { s in
            guard s.waiting.count - s.head + s.running < limit else { return (false, false) }
            s.waiting.append(work)
            guard s.running < workers else { return (true, false) }
            s.running += 1
            return (true, true)
        }
        if !accepted { metrics.recordShadowDropped() }
        if spawn { Task.detached(priority: .low) { await self.drain() } }
        return accepted
    }

    /// Runs `work` (an OpenPush half paced live first) in the paced lane at once, in a task of
    /// its own; false (and counted as dropped) when the lane already holds `limit`.
    @discardableResult
    public func submitPaced(_ work: @escaping Work) -> Bool {
        let limit = limit
        let accepted = paced.withLock { n -> Bool in
            guard n < limit else { return false }
            n += 1
            return true
        }
        guard accepted else {
            metrics.recordShadowDropped()
            return false
        }
        Task.detached(priority: .low) {
            await work()
            self.paced.withLock { $0 -= 1 }
        }
        return true
    }

    private func drain() async {
        while let work = next() { await work() }
    }

    private func next() -> Work? {
        state.withLock { s in
            guard s.head < s.waiting.count else {
                s.waiting.removeAll(keepingCapacity: true)
                s.head = 0
                s.running -= 1
                return nil
            }
            let w = s.waiting[s.head]
            s.head += 1
            if s.head > 64, s.head * 2 > s.waiting.count {
                s.waiting.removeFirst(s.head)
                s.head = 0
            }
            return w
        }
    }
}
