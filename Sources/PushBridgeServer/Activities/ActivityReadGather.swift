import Dispatch
import PushBridgeCore
import Synchronization

/// The activity ledger's reads on PostgreSQL carried together (issue 30): the reads that
/// arrive while one statement is at the server wait together and are answered by the next
/// statement, so the database sees one round trip (one wake of its backend, one autocommit
/// transaction) per batch of concurrent requests, not one per request.
///
/// Flat combining, as the shared pacer's ``PacerBatchQueue`` carries reservations: a read that
/// finds no statement running starts one at once with whatever is queued (a lone request
/// never waits for company and no timer is involved); one that finds one running waits for
/// it and goes with the next. The statements run one after another on the gather's own serial
/// dispatch queue, never on a cooperative-pool thread; a statement carries at most
/// ``maxBatch`` reads, the rest go with the next one. A statement that fails fails every read
/// it carried alike (each of them would have met the same failure alone).
final class ActivityReadGather: Sendable {
    /// One read asked for: the record of `activityId` under `firstKey`, else `secondKey`,
    /// started after `cutoff` (``ActivityLedgerSQL/recordSQL``'s values).
    struct Ask: Sendable {
        /// The activity id, as stored (NULs escaped).
        var activityId: String
        /// The key whose record wins: the OpenPush app.
        var firstKey: String
        /// The other key: the source app's legacy key.
        var secondKey: String
        /// Records started at or before this (Unix ms) are past their lifetime.
        var cutoff: Int64
    }

    /// What the gather has done: reads answered, statements that answered them, and reads
    /// queued for the next statement right now.
    struct Statistics: Sendable, Equatable {
        /// Reads carried by a statement (answered or failed).
        var reads = 0
        /// Statements sent: each carried one or more reads.
        var statements = 0
        /// Reads waiting for the statement after the one at the server.
        var waiting = 0
        /// The most reads one statement carried.
        var largestBatch = 0
    }

    /// The most reads one statement carries.
    let maxBatch: Int
    private let queue: DispatchQueue
    private let run: @Sendable ([Ask]) throws -> [ActivityRecord?]
    private let state = Mutex<State>(State())

    private typealias Caller = CheckedContinuation<ActivityRecord?, any Error>

    private struct State: ~Copyable {
        var waiting: [(ask: Ask, caller: Caller)] = []
        var running = false
        var statistics = Statistics()
    }

    /// A gather whose statements `run` answers, one record (or nil) per ask in order, on a
    /// serial dispatch queue labelled `label` (`run` blocks on its round trip: it is never on
    /// the pool).
    init(label: String, maxBatch: Int = 64, run: @escaping @Sendable ([Ask]) throws -> [ActivityRecord?]) {
        self.maxBatch = max(maxBatch, 1)
        self.queue = DispatchQueue(label: label)
        self.run = run
    }

    /// The record `ask` names, read by the next statement (at once when none is running).
    func read(_ ask: Ask) async throws -> ActivityRecord? {
        try await withCheckedThrowingContinuation { (caller: Caller) in
            let start = state.withLock { s in
                s.waiting.append((ask, caller))
                defer { s.running = true }
                return !s.running
            }
            if start { queue.async { self.drain() } }
        }
    }

    /// What the gather has done so far.
    var statistics: Statistics {
        state.withLock { s in
            var statistics = s.statistics
            statistics.waiting = s.waiting.count
            return statistics
        }
    }

    /// Runs statements while reads are queued; then stops until the next read starts it again.
    private func drain() {
        while true {
            let batch = state.withLock { s -> [(ask: Ask, caller: Caller)]? in
                guard !s.waiting.isEmpty else {
                    s.running = false
                    return nil
                }
                let taken = Array(s.waiting.prefix(maxBatch))
                s.waiting.removeFirst(taken.count)
                s.statistics.statements += 1
                s.statistics.reads += taken.count
                s.statistics.largestBatch = max(s.statistics.largestBatch, taken.count)
                return taken
            }
            guard let batch else { return }
            do {
                let records = try run(batch.map(\.ask))
                for (i, entry) in batch.enumerated() { entry.caller.resume(returning: i < records.count ? records[i] : nil) }
            } catch {
                for entry in batch { entry.caller.resume(throwing: error) }
            }
        }
    }
}
