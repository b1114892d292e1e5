import Dispatch
import Synchronization

/// The shared pacer's group commit: reservations that arrive while a batch is being written
/// wait together and are carried by the next one, so the database sees one transaction per
/// batch, not per request (the audit writer's group commit, for the pacer).
///
/// Callers suspend on a continuation; the batches run one after another on the queue's own
/// serial dispatch queue, never on a cooperative-pool thread, and each batch resumes every
/// caller it carried. A batch holds at most ``maxBatch`` reservations; the rest wait for the
/// next one. Other work given to ``perform(_:)`` runs between two batches, never starved by a
/// steady stream of them.
final class PacerBatchQueue: Sendable {
    /// One reservation asked for.
    struct Ask: Sendable {
        /// The OpenPush app.
        var app: String
        /// Consecutive slots wanted.
        var count: Int
        /// The caller's clock (Unix ms).
        var now: Int64
        /// A shadow send's: only budget live sends do not need (``PacerWindow/reserveSpare(count:now:settings:)``).
        var spare = false
    }

    /// The most reservations one batch carries.
    let maxBatch: Int
    private let queue: DispatchQueue
    private let run: @Sendable ([Ask]) -> [SendPacer.Reservation]
    private let state = Mutex<State>(State())

    private struct State: ~Copyable {
        var waiting: [(ask: Ask, caller: CheckedContinuation<SendPacer.Reservation, Never>)] = []
        var running = false
        var batches = 0
        var carried = 0
    }

    /// A queue whose batches `run` answers, one answer per ask in order, on a serial
    /// dispatch queue labelled `label` (`run` may block: it is never on the pool).
    init(label: String, maxBatch: Int = 256, run: @escaping @Sendable ([Ask]) -> [SendPacer.Reservation]) {
        self.maxBatch = max(maxBatch, 1)
        self.queue = DispatchQueue(label: label)
        self.run = run
    }

    /// Waits for `ask` to be carried by a batch; its answer.
    func submit(_ ask: Ask) async -> SendPacer.Reservation {
        await withCheckedContinuation { caller in
            let start = state.withLock { s in
                s.waiting.append((ask, caller))
                defer { s.running = true }
                return !s.running
            }
            if start { queue.async { self.drain() } }
        }
    }

    /// Batches run so far, the reservations they carried, and the reservations waiting for
    /// the next batch.
    var statistics: (batches: Int, reservations: Int, waiting: Int) { state.withLock { ($0.batches, $0.carried, $0.waiting.count) } }

    /// Runs `body` on the queue between batches (the pacer's other statements share its
    /// connection and its order).
    func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (caller: CheckedContinuation<T, any Error>) in
            queue.async { caller.resume(with: Result { try body() }) }
        }
    }

    /// Runs one batch, then queues the next behind whatever else was queued meanwhile.
    private func drain() {
        let batch = state.withLock { s -> [(ask: Ask, caller: CheckedContinuation<SendPacer.Reservation, Never>)] in
            let taken = Array(s.waiting.prefix(maxBatch))
            s.waiting.removeFirst(taken.count)
            s.batches += 1
            s.carried += taken.count
            return taken
        }
        let answers = run(batch.map(\.ask))
        for (i, entry) in batch.enumerated() {
            entry.caller.resume(returning: i < answers.count ? answers[i] : .unavailable)
        }
        let more = state.withLock { s in
            if s.waiting.isEmpty { s.running = false }
            return s.running
        }
        if more { queue.async { self.drain() } }
    }
}
