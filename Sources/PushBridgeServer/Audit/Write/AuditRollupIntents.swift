/// The writer's open intents: request id → the dimensions its completion is counted under,
/// so a completion (which carries only its own columns) is folded without reading its row.
/// Filled once an intent's batch committed, emptied by its completion. Bounded: at
/// ``capacity`` open intents it starts over, and the completions of the intents it forgot
/// look them up in the log (``AuditRollupRows/lookUp(_:in:)``, one indexed query per batch).
/// Confined to the writer thread.
struct AuditRollupIntents {
    /// The most intents held.
    static let capacity = 100_000

    private var open: [String: AuditRollupRow.Intent] = [:]

    /// The intent of `requestId`, if held.
    subscript(requestId: String) -> AuditRollupRow.Intent? { open[requestId] }

    /// Remembers a committed pending intent.
    mutating func hold(_ requestId: String, _ intent: AuditRollupRow.Intent) {
        if open.count >= Self.capacity { open.removeAll(keepingCapacity: true) }
        open[requestId] = intent
    }

    /// Forgets a completed one.
    mutating func release(_ requestId: String) { open.removeValue(forKey: requestId) }
}
