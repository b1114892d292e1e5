/// The SQLite writer's intents without their outcome yet (request id → `request_log` id), so
/// it can say through which log id every intent it wrote has its outcome: the low-water mark
/// it keeps in `audit_marks` for recovery (``AuditLogSchema``). Confined to the writer thread.
///
/// Changes made inside a transaction are kept apart until it commits, and undone when it rolls
/// back, so the mark never passes an intent that is open in the file. It holds one entry per
/// request between its begin and its completion (the requests in flight, and those whose
/// completion waits for the late-completion retries); an intent never completed in a live
/// process holds the mark back, which only makes the next recovery read further.
struct AuditOpenIntents {
    /// Intents this writer committed that have no outcome yet.
    private var open: [String: Int64] = [:]
    /// The highest log id this writer wrote, committed.
    private var highest: Int64
    /// What the open transaction added and settled.
    private var added: [(requestId: String, id: Int64)] = []
    private var settled: [(requestId: String, id: Int64)] = []
    private var highestInTransaction: Int64
    /// Intents written since the mark was last written.
    private(set) var sinceMark = 0

    /// Starts after recovery: every intent through `settledThrough` has its outcome.
    init(settledThrough: Int64) {
        highest = settledThrough
        highestInTransaction = settledThrough
    }

    /// An intent `requestId` written as log row `id` without its outcome.
    mutating func opened(_ requestId: String, id: Int64) {
        added.append((requestId, id))
        highestInTransaction = max(highestInTransaction, id)
        sinceMark += 1
    }

    /// A row written with its outcome (``AuditStore/record(_:_:)``): never open.
    mutating func wroteSettled(id: Int64) {
        highestInTransaction = max(highestInTransaction, id)
        sinceMark += 1
    }

    /// The outcome of `requestId` was written (a request of another process, or one written
    /// settled, changes nothing).
    mutating func completed(_ requestId: String) {
        if let id = open.removeValue(forKey: requestId) {
            settled.append((requestId, id))
        } else if let index = added.firstIndex(where: { $0.requestId == requestId }) {
            added.remove(at: index)
        }
    }

    /// The open transaction committed.
    mutating func committed() {
        for (requestId, id) in added { open[requestId] = id }
        added.removeAll(keepingCapacity: true)
        settled.removeAll(keepingCapacity: true)
        highest = highestInTransaction
    }

    /// The open transaction rolled back: what it added was never written, what it settled is open again.
    mutating func rolledBack() {
        for (requestId, id) in settled { open[requestId] = id }
        added.removeAll(keepingCapacity: true)
        settled.removeAll(keepingCapacity: true)
        highestInTransaction = highest
    }

    /// The log id through which every intent written so far (the open transaction's included)
    /// has its outcome: just before the oldest open one, else the highest written.
    var settledThrough: Int64 {
        let oldest = min(open.values.min() ?? .max, added.map(\.id).min() ?? .max)
        return oldest == .max ? highestInTransaction : oldest - 1
    }

    /// The mark was written.
    mutating func marked() { sinceMark = 0 }
}
