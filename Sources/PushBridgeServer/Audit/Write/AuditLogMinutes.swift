/// The minutes the SQLite writer wrote intents in (``AuditLogMinutesSchema``), each with the
/// lowest and highest `request_log` id it wrote there. Confined to the writer thread.
///
/// The newest minute is open: its row is written when it starts (a commit holding its first
/// intent), and its highest id only when a later minute starts, the writer closes or the next
/// writer opens after a crash (``load(_:)``); in between, its later intents are written in
/// order after every other row, which readers cover without the row
/// (``AuditLogMinutesSchema/upperBound(_:)``). An intent of an earlier minute (a late row)
/// widens that minute's row in its own commit. So a batch inside the newest minute writes
/// nothing here (it wrote one page each commit before: ~0.9 WAL frames).
struct AuditLogMinutes {
    /// The newest minute: its lowest id, the highest id written in it, the highest id its row holds.
    private struct Open: Equatable {
        var minute: Int64
        var first: Int64
        var last: Int64
        var stored: Int64
    }

    /// The open transaction's minutes: (minute, first id, last id), in the order first seen.
    private var ranges: [(minute: Int64, first: Int64, last: Int64)] = []
    /// The newest minute as committed, and as it will be once the open transaction commits.
    private var open: Open?
    private var committing: Open?

    /// The newest minute of `database`'s table (nil: none yet), its row first given the highest
    /// id the log holds in it (a writer that crashed left it open), read back from the log's
    /// end: the rows after that minute's last are late rows of earlier minutes, so few.
    static func load(_ database: SQLiteDatabase) throws(SQLiteError) -> AuditLogMinutes {
        var minutes = AuditLogMinutes()
        try minutes.reload(database)
        return minutes
    }

    /// Reads the newest minute again, as ``load(_:)`` (inside the open transaction, whose
    /// minutes stay noted): after a prune, which may delete its row, or another connection's
    /// commit (a tool's rows through the view's triggers may start a later minute).
    mutating func reload(_ database: SQLiteDatabase) throws(SQLiteError) {
        open = nil
        let table = AuditLogMinutesSchema.table
        guard let row = try database.rows("SELECT minute, first_id, last_id FROM \(table) ORDER BY minute DESC LIMIT 1").first,
              let minute = row[0].integerValue, let first = row[1].integerValue, var last = row[2].integerValue else { return }
        let highest = try database.rows("SELECT id FROM request_log WHERE id >= ? AND received_at / 60000 = ? ORDER BY id DESC LIMIT 1",
                                        [.integer(last), .integer(minute)]).first?.first?.integerValue ?? last
        if highest > last {
            try database.execute("UPDATE \(table) SET last_id = ? WHERE minute = ?", [.integer(highest), .integer(minute)])
            last = highest
        }
        open = Open(minute: minute, first: first, last: last, stored: last)
    }

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

    /// Runs `upsert` with the values of each minute row the open transaction must write
    /// (``AuditLogMinutesSchema/upsertSQL``): a minute it starts (and the one it closes), a
    /// late row's minute; nothing for intents inside the open minute. Then forgets the
    /// transaction's minutes (it is about to commit: ``committed()``).
    mutating func write(_ upsert: ([SQLiteValue]) throws(SQLiteError) -> Void) throws(SQLiteError) {
        defer { ranges.removeAll(keepingCapacity: true) }
        var next = open
        let newest = ranges.map(\.minute).max()
        if let newest, newest > (open?.minute ?? .min) {
            // A minute starts: the one it closes gets its highest id, every minute here its row.
            if var closing = open {
                for range in ranges where range.minute == closing.minute { closing.last = max(closing.last, range.last) }
                if closing.last > closing.stored { try upsert([.integer(closing.minute), .integer(closing.first), .integer(closing.last)]) }
            }
            for range in ranges { try upsert([.integer(range.minute), .integer(range.first), .integer(range.last)]) }
            if let started = ranges.first(where: { $0.minute == newest }) {
                next = Open(minute: newest, first: started.first, last: started.last, stored: started.last)
            }
        } else if var current = open {
            for range in ranges {
                if range.minute == current.minute {
                    current.last = max(current.last, range.last)
                    // Only a tool's row can come before the minute's first: written at once.
                    guard range.first < current.first else { continue }
                    current.first = range.first
                    current.stored = max(current.stored, range.last)
                }
                try upsert([.integer(range.minute), .integer(range.first), .integer(range.last)])
            }
            next = current
        }
        committing = next
    }

    /// The transaction ``write(_:)`` wrote for committed.
    mutating func committed() {
        if let committing { open = committing }
        committing = nil
    }

    /// The open transaction was rolled back: its intents are gone.
    mutating func rolledBack() {
        ranges.removeAll(keepingCapacity: true)
        committing = nil
    }

    /// Runs `upsert` with the open minute's row holding its highest id, if its row lacks it
    /// (the writer closes: the table then equals the log's own minutes).
    mutating func close(_ upsert: ([SQLiteValue]) throws(SQLiteError) -> Void) throws(SQLiteError) {
        guard let current = open, current.last > current.stored else { return }
        try upsert([.integer(current.minute), .integer(current.first), .integer(current.last)])
        open?.stored = current.last
    }
}
