import PushBridgeCore
import Synchronization

/// The scheduler's own SQLite file (WAL, `synchronous=FULL`, `secure_delete`).
///
/// It holds the one thing the audit must never hold: the real OpenPush request (device and
/// subscription ids in clear) of a start that is to be sent later. That is why it is a
/// separate file from the audit, and why the body is deleted (and, with `secure_delete`,
/// overwritten) in the same transaction that marks the send final. REST keys are never
/// stored: the send reads the app's key from the configuration.
///
/// Every state change is one transaction guarded by the state it leaves, so two schedulers
/// (or a restarted one) can never both claim a send.
public final class ScheduledStartStore: ScheduledStartStoring {
    private let db: Mutex<SQLiteDatabase>
    /// The file.
    public let path: String

    private static let columns = ScheduledStart.storedColumns

    /// The file, for logs.
    public var location: String { path }
    /// Only this process stores starts in its file: the scheduler is woken for each.
    public var pollMilliseconds: Int64? { nil }

    /// Opens (creating and migrating) the scheduler file. With `recover` (a proxy starting),
    /// sends left `sending` by a process that stopped are made `pending` again; the CLI opens
    /// it without.
    ///
    /// Why `sending` goes back to `pending` (and not to `failed` or `unknown`): the process
    /// died after the claim and before `finish` committed, so OpenPush may or may not have
    /// started the activity. Marking it final would lose a start that never left. Sending it
    /// again cannot start it twice: its body, kept until `finish`, carries the
    /// `idempotency_key` derived from the request id and ordinal (``IdempotencyKeys``), the
    /// same key as the first try, so OpenPush answers a start it already made as a replay
    /// with the same notification id. The audit row stays `scheduled` (its mirror `sending`)
    /// until that resend completes it. The limit: OpenPush keeps keys for
    /// `OpenPushLimits.idempotencyWindowSeconds` (30 days); a process down longer than that
    /// with a start in flight could start it twice.
    public init(path: String, recover: Bool = true) throws {
        let database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA secure_delete = ON")
        var migrator = SQLiteMigrator()
        migrator.register(1, "scheduled starts", sql: """
            CREATE TABLE scheduled_starts (
                id TEXT PRIMARY KEY, request_id TEXT NOT NULL, ordinal INTEGER NOT NULL, app_name TEXT NOT NULL,
                target_app TEXT NOT NULL, send_at INTEGER NOT NULL, send_date TEXT, timezone TEXT, state TEXT NOT NULL,
                activity_type TEXT, body TEXT, notification_id TEXT, upstream_status INTEGER, error TEXT,
                created_at INTEGER NOT NULL, claimed_at INTEGER, finished_at INTEGER);
            CREATE INDEX scheduled_due ON scheduled_starts (state, send_at);
            CREATE INDEX scheduled_by_request ON scheduled_starts (request_id);
            """)
        _ = try migrator.migrate(database)
        if recover { try database.execute("UPDATE scheduled_starts SET state = 'pending', claimed_at = NULL WHERE state = 'sending'", []) }
        self.path = path
        db = Mutex(database)
    }

    /// The WAL checkpointed into the file and truncated, so the file alone holds every start
    /// (a clean stop does this once the scheduler stopped).
    public func checkpointAtStop() throws {
        try db.withLock { try $0.checkpointTruncatingWAL() }
    }

    /// Stores new pending starts in one transaction.
    public func insert(_ starts: [ScheduledStart], now: Int64) throws {
        try db.withLock { d in
            try d.transaction {
                for s in starts {
                    guard let stored = s.storedBody else { continue }
                    try d.execute("INSERT INTO scheduled_starts (id, request_id, ordinal, app_name, target_app, send_at, send_date, timezone, state, activity_type, body, created_at) VALUES (?,?,?,?,?,?,?,?,'pending',?,?,?)",
                                  [.text(s.id), .text(s.requestId), .integer(Int64(s.ordinal)), .text(s.appName), .text(s.targetApp), .integer(s.sendAt),
                                   .text(s.sendDate), .text(s.timezone), .text(stored.activityType), .text(stored.body), .integer(now)])
                }
            }
        }
    }

    /// Pending starts due at `now`, earliest first.
    public func due(now: Int64, limit: Int = 100) throws -> [ScheduledStart] {
        try select("WHERE state = 'pending' AND send_at <= ? ORDER BY send_at LIMIT ?", [.integer(now), .integer(Int64(limit))])
    }

    /// Claims the pending starts due at `now`, earliest first (each claim its own
    /// transaction guarded by `pending`).
    public func claimDue(now: Int64, limit: Int = 100) throws -> [ScheduledStart] {
        try due(now: now, limit: limit).filter { try claim($0.id, now: now) }.map { start in
            var claimed = start
            claimed.state = .sending
            return claimed
        }
    }

    /// The earliest pending send time.
    public func nextSendAt() throws -> Int64? {
        try db.withLock { try $0.rows("SELECT MIN(send_at) FROM scheduled_starts WHERE state = 'pending'") }.first?.first?.integerValue
    }

    /// Starts in the given states (all when empty), by send time.
    public func list(states: [ScheduledStart.State]) throws -> [ScheduledStart] {
        if states.isEmpty { return try select("ORDER BY send_at", []) }
        let marks = states.map { _ in "?" }.joined(separator: ",")
        return try select("WHERE state IN (\(marks)) ORDER BY send_at", states.map { .text($0.rawValue) })
    }

    /// How many starts the file holds, in any state.
    public func count() throws -> Int {
        Int(try db.withLock { try $0.rows("SELECT count(*) FROM scheduled_starts") }.first?.first?.integerValue ?? 0)
    }

    /// The starts of one inbound request.
    public func starts(ofRequest requestId: String) throws -> [ScheduledStart] {
        try select("WHERE request_id = ? ORDER BY ordinal", [.text(requestId)])
    }

    /// `pending` → `sending`; false when it was not pending (claimed, cancelled, final).
    public func claim(_ id: String, now: Int64) throws -> Bool {
        try transition(id, from: [.pending], to: .sending, sets: "claimed_at = ?", [.integer(now)])
    }

    /// `sending` → `sent` or `failed`, deleting the body in the same transaction.
    public func finish(_ id: String, sent: Bool, notificationId: String?, status: Int?, error: String?, now: Int64) throws {
        _ = try transition(id, from: [.sending], to: sent ? .sent : .failed, sets: "body = NULL, notification_id = ?, upstream_status = ?, error = ?, finished_at = ?",
                           [notificationId.map(SQLiteValue.text) ?? .null, status.map { .integer(Int64($0)) } ?? .null, error.map(SQLiteValue.text) ?? .null, .integer(now)])
    }

    /// `pending` → `cancelled`, deleting the body; false when it was no longer pending.
    public func cancel(_ id: String, now: Int64) throws -> Bool {
        try transition(id, from: [.pending], to: .cancelled, sets: "body = NULL, finished_at = ?", [.integer(now)])
    }

    private func transition(_ id: String, from: [ScheduledStart.State], to: ScheduledStart.State, sets: String, _ values: [SQLiteValue]) throws -> Bool {
        let marks = from.map { _ in "?" }.joined(separator: ",")
        return try db.withLock { d in
            try d.transaction {
                try d.execute("UPDATE scheduled_starts SET state = ?, \(sets) WHERE id = ? AND state IN (\(marks))",
                              [.text(to.rawValue)] + values + [.text(id)] + from.map { .text($0.rawValue) })
                return d.changes == 1
            }
        }
    }

    private func select(_ clause: String, _ args: [SQLiteValue]) throws -> [ScheduledStart] {
        let rows = try db.withLock { try $0.rows("SELECT \(Self.columns) FROM scheduled_starts \(clause)", args) }
        return rows.compactMap(Self.decode)
    }

    private static func decode(_ row: [SQLiteValue]) -> ScheduledStart? {
        guard row.count == 15 else { return nil }
        return ScheduledStart.stored(text: { row[$0].textValue }, integer: { row[$0].integerValue })
    }
}
