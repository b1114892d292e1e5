import Synchronization

/// The scheduled starts, over either engine: the scheduler's own SQLite file (one instance)
/// or the `scheduled_starts` table of the PostgreSQL database every instance shares. The one
/// type that writes them; ``ScheduledStartLifecycle`` makes every change of a start's state
/// through it, ``InstanceRegistry`` calls ``release(claimedBy:on:)`` to take over a dead
/// instance's starts.
///
/// It holds the one thing the audit must never hold: the real OpenPush request (device and
/// subscription ids in clear) of a start that is to be sent later, deleted in the statement
/// that makes the start final (SQLite's `secure_delete` overwrites it; PostgreSQL's old row
/// version is gone once `VACUUM` reclaims it). REST keys are never stored: the send reads
/// the app's key from the configuration.
///
/// One statement set (``ScheduledStartSQL``) over one schema (``ScheduledStartSchema``); the
/// connection is used only on the store's own serial queue (``SerializedDatabase``), so a
/// claim or an fsync'd commit never holds a cooperative-pool thread.
public final class ScheduledStartStore: Sendable {
    private let database: SerializedDatabase
    private let committed = Atomic<Int>(0)
    /// This instance's name, recorded on the starts it stores and claims.
    public let instance: String
    /// Where the starts live, for logs: the file, or the redacted URI.
    public let location: String
    /// How often (ms) the scheduler looks for starts other instances stored; nil when only
    /// this process stores starts (the scheduler is woken for each).
    public let pollMilliseconds: Int64?

    /// Opens (creating and migrating) the scheduler file (WAL, `synchronous=FULL`,
    /// `secure_delete`). With `recover` (a proxy starting), starts left `sending` by a
    /// process that stopped are made `pending` again (``release(claimedBy:on:)``); the CLI
    /// opens it without.
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
    public init(path: String, instance: String = "", recover: Bool = true) throws {
        let file = try SQLiteDatabase(path: path)
        try file.execute("PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA secure_delete = ON")
        _ = try ScheduledStartSchema.sqliteMigrator.migrate(file)
        database = SerializedDatabase(.sqlite(file), label: "scheduled-starts")
        self.instance = instance
        location = path
        pollMilliseconds = nil
        // The file is this process's alone: every claim left in it was an earlier process's.
        if recover { try database.performWhileOpening { try Self.release(claimedBy: nil, on: $0) } }
    }

    /// The starts in the PostgreSQL database at `uri` (its schema applied here), stored and
    /// claimed as `instance`. A start left `sending` by an earlier process of the same name is
    /// made `pending` again by ``InstanceRegistry/start()``, which knows the process starting.
    public init(postgres uri: String, instance: String, pollMilliseconds: Int64 = 1_000) throws {
        let link = try PostgresLink(uri: uri, label: "scheduled")
        // Migrated before the queue exists: nothing else can reach the link yet.
        try link.run { try PostgresSchema.migrator.migrate($0) }
        database = SerializedDatabase(.postgres(link), label: "scheduled-starts")
        self.instance = instance
        self.pollMilliseconds = pollMilliseconds
        location = (try? PostgresURI(uri).redacted) ?? "PostgreSQL"
    }

    /// The write transactions this store committed that changed a row (each a durable
    /// commit: an fsync on SQLite, a WAL flush on PostgreSQL); one that changed nothing
    /// writes nothing and is not counted.
    public var commits: Int { committed.load(ordering: .relaxed) }

    /// Stores new pending starts in one transaction.
    public func insert(_ starts: [ScheduledStart], now: Int64) async throws {
        try await write { [instance] db in
            let inserted = try starts.reduce(0) { count, s in
                guard let stored = s.storedBody else { return count }
                return count + (try db.change(ScheduledStartSQL.insert, ScheduledStartSQL.insertValues(s, stored: stored, now: now, instance: instance)))
            }
            return ((), inserted)
        }
    }

    /// Claims (`pending` → `sending`) up to `limit` starts due at `now` for this instance, in
    /// one statement, earliest first; a start another scheduler claimed meanwhile is not among them.
    public func claimDue(now: Int64, limit: Int = 100) async throws -> [ScheduledStart] {
        let (sql, values) = ScheduledStartSQL.claimDue(now: now, limit: limit, instance: instance, postgres: database.isPostgres)
        return try await write { db in
            let claimed = ScheduledStartSQL.starts(try db.select(sql, values))
            return (claimed, claimed.count)
        }.sorted { ($0.sendAt, $0.id) < ($1.sendAt, $1.id) }
    }

    /// `pending` → `sending` for one start; false when it was not pending (claimed, cancelled, final).
    public func claim(_ id: String, now: Int64) async throws -> Bool {
        try await write { [instance] db in
            let changed = try db.change(ScheduledStartSQL.claim, [.integer(now), .text(instance), .text(id)])
            return (changed == 1, changed)
        }
    }

    /// `sending` → `sent` or `failed`, deleting the body in the same statement.
    public func finish(_ id: String, sent: Bool, notificationId: String?, status: Int?, error: String?, now: Int64) async throws {
        let (sql, values) = ScheduledStartSQL.finish(id, sent: sent, notificationId: notificationId, status: status, error: error, now: now)
        try await write { db in ((), try db.change(sql, values)) }
    }

    /// `pending` → `cancelled`, deleting the body; false when it was no longer pending.
    public func cancel(_ id: String, now: Int64) async throws -> Bool {
        try await write { db in
            let changed = try db.change(ScheduledStartSQL.cancel, [.integer(now), .text(id)])
            return (changed == 1, changed)
        }
    }

    /// Makes `pending` again the starts `instance` left `sending` (every claim when nil), on
    /// `db` inside the caller's transaction: a proxy starting for its own earlier process, a
    /// survivor for a dead instance (``InstanceRegistry``). How many.
    static func release(claimedBy instance: String?, on db: any AuditSQL) throws -> Int {
        let (sql, values) = ScheduledStartSQL.release(claimedBy: instance)
        return try db.change(sql, values)
    }

    /// `pushbridge audit copy`: one start of a scheduler file moved into the shared table on
    /// `db` (``ScheduledStartSQL/moveFromFile``); true inserted, false updated, nil left alone.
    static func move(_ values: [String?], on db: PostgresConnection) throws -> Bool? {
        try db.execute(ScheduledStartSQL.moveFromFile, values).rows.first.flatMap { $0.first ?? nil }.map { $0 == "t" }
    }

    /// The earliest pending send time.
    public func nextSendAt() async throws -> Int64? {
        try await database.perform { try $0.select(ScheduledStartSQL.nextSendAt, []).first?.first?.integerValue }
    }

    /// Starts in the given states (all when empty), by send time.
    public func list(states: [ScheduledStart.State] = []) async throws -> [ScheduledStart] {
        let (sql, values) = ScheduledStartSQL.list(states: states)
        return try await database.perform { ScheduledStartSQL.starts(try $0.select(sql, values)) }
    }

    /// One start by id; nil when there is none.
    public func start(_ id: String) async throws -> ScheduledStart? {
        try await database.perform { ScheduledStartSQL.starts(try $0.select(ScheduledStartSQL.byId, [.text(id)])).first }
    }

    /// How many starts are still to send (pending or sending) whose send time is before
    /// `before` (Unix ms).
    public func overdue(before: Int64) async throws -> Int {
        Int(try await database.perform { try $0.select(ScheduledStartSQL.overdue, [.integer(before)]).first?.first?.integerValue } ?? 0)
    }

    /// How many starts are stored, in any state.
    public func count() async throws -> Int {
        Int(try await database.perform { try $0.select(ScheduledStartSQL.count, []).first?.first?.integerValue } ?? 0)
    }

    /// The starts of one inbound request, by ordinal.
    public func starts(ofRequest requestId: String) async throws -> [ScheduledStart] {
        try await database.perform { ScheduledStartSQL.starts(try $0.select(ScheduledStartSQL.ofRequest, [.text(requestId)])) }
    }

    /// At a clean stop, after the scheduler stopped: the scheduler file's WAL checkpointed
    /// into it and truncated, so the file alone holds every start; nothing on PostgreSQL.
    public func checkpointAtStop() async throws {
        _ = try await database.performOnSQLite { try $0.checkpointTruncatingWAL() }
    }

    /// `body` (its result and the rows it changed) in one transaction on the store's queue,
    /// counted in ``commits`` when it changed a row.
    private func write<T: Sendable>(_ body: @escaping @Sendable (any AuditSQL) throws -> (T, changed: Int)) async throws -> T {
        try await database.perform { [self] db in
            let (result, changed) = try db.inTransaction { try body(db) }
            if changed > 0 { committed.add(1, ordering: .relaxed) }
            return result
        }
    }
}
