/// The minutes the SQLite writer's open transaction wrote intents in, each with the lowest and
/// highest `request_log` id it wrote there (``AuditLogMinutesSchema``): written with one upsert
/// per minute just before the commit, so `request_log_minutes` covers every committed intent.
/// A batch's intents fall in one minute, or two across a minute's turn; a few arrive late from
/// an earlier minute. Confined to the writer thread.
struct AuditLogMinutes {
    /// The open transaction's minutes: (minute, first id, last id), in the order first seen.
    private var ranges: [(minute: Int64, first: Int64, last: Int64)] = []

    /// An intent received at `receivedAt` (Unix ms) written as log row `id`.
    mutating func wrote(receivedAt: Int64, id: Int64) {
        let minute = receivedAt / 60_000
        if let index = ranges.firstIndex(where: { $0.minute == minute }) {
            ranges[index].first = min(ranges[index].first, id)
            ranges[index].last = max(ranges[index].last, id)
        } else {
            ranges.append((minute, id, id))
        }
    }

    /// Runs `upsert` with the values of each minute's row (``AuditLogMinutesSchema/upsertSQL``),
    /// then forgets them (the transaction is about to commit).
    mutating func write(_ upsert: ([SQLiteValue]) throws(SQLiteError) -> Void) throws(SQLiteError) {
        for range in ranges { try upsert([.integer(range.minute), .integer(range.first), .integer(range.last)]) }
        ranges.removeAll(keepingCapacity: true)
    }

    /// The open transaction was rolled back: its intents are gone.
    mutating func rolledBack() {
        ranges.removeAll(keepingCapacity: true)
    }
}
