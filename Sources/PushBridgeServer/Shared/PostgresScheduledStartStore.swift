/// Scheduled starts in the PostgreSQL database every instance shares: any instance's
/// scheduler sends a start at its time, whichever instance took it.
///
/// Due starts are claimed with `FOR UPDATE SKIP LOCKED` in one statement, each claim naming
/// the instance (`claimed_by`), so two schedulers polling at the same moment split the due
/// starts and never both claim one. A start left `sending` by an instance that died is made
/// `pending` again by a survivor (``InstanceRegistry``) and sent again with the same body, so
/// with the same `idempotency_key`: OpenPush answers it as a replay, never as a second start.
/// The body (device ids) is set to NULL in the transaction that makes the start final; the
/// old row version is gone from disk once `VACUUM` (autovacuum) reclaims it.
public final class PostgresScheduledStartStore: ScheduledStartStoring {
    private let link: PostgresLink
    /// This instance's name, recorded on the starts it stores and claims.
    public let instance: String
    /// The redacted URI.
    public let location: String
    /// How often the scheduler looks for starts other instances stored.
    public let pollMilliseconds: Int64?

    /// A store on the database at `uri` (its schema applied by ``SharedSchema``). With
    /// `recover` (a proxy starting), starts left `sending` by an earlier process of the same
    /// `instance` name are made `pending` again (see ``ScheduledStartStore/init(path:recover:)``).
    public init(uri: String, instance: String, pollMilliseconds: Int64 = 1_000, recover: Bool = true) throws {
        link = try PostgresLink(uri: uri, label: "scheduled")
        self.instance = instance
        self.pollMilliseconds = pollMilliseconds
        location = (try? PostgresURI(uri).redacted) ?? "PostgreSQL"
        try link.run { db in
            try SharedSchema.apply(on: db)
            if recover {
                try db.execute("UPDATE scheduled_starts SET state = 'pending', claimed_at = NULL, claimed_by = NULL WHERE state = 'sending' AND claimed_by = $1", [instance])
            }
        }
    }

    /// Stores new pending starts in one transaction.
    public func insert(_ starts: [ScheduledStart], now: Int64) throws {
        try link.run { db in
            try db.transaction {
                for s in starts {
                    guard let stored = s.storedBody else { continue }
                    try db.execute("""
                        INSERT INTO scheduled_starts (id, request_id, ordinal, app_name, target_app, send_at, send_date, timezone, state, activity_type, body, created_at, created_by)
                        VALUES ($1, $2, $3::integer, $4, $5, $6::bigint, $7, $8, 'pending', $9, $10, $11::bigint, $12)
                        """, [s.id, s.requestId, String(s.ordinal), s.appName, s.targetApp, String(s.sendAt), s.sendDate, s.timezone,
                              stored.activityType, stored.body, String(now), instance])
                }
            }
        }
    }

    /// Claims up to `limit` pending starts due at `now` for this instance, earliest first;
    /// rows another instance is claiming at this moment are skipped, not waited for.
    public func claimDue(now: Int64, limit: Int) throws -> [ScheduledStart] {
        try select("""
            UPDATE scheduled_starts SET state = 'sending', claimed_at = $1::bigint, claimed_by = $2
            WHERE id IN (SELECT id FROM scheduled_starts WHERE state = 'pending' AND send_at <= $1::bigint
                         ORDER BY send_at LIMIT $3::integer FOR UPDATE SKIP LOCKED)
            RETURNING \(ScheduledStart.storedColumns)
            """, [String(now), instance, String(limit)]).sorted { ($0.sendAt, $0.id) < ($1.sendAt, $1.id) }
    }

    /// The earliest pending send time.
    public func nextSendAt() throws -> Int64? {
        try link.run { try $0.execute("SELECT MIN(send_at) FROM scheduled_starts WHERE state = 'pending'").value(0, 0) }.flatMap { Int64($0) }
    }

    /// Starts in the given states (all when empty), by send time.
    public func list(states: [ScheduledStart.State]) throws -> [ScheduledStart] {
        if states.isEmpty { return try select("SELECT \(ScheduledStart.storedColumns) FROM scheduled_starts ORDER BY send_at, id", []) }
        let text = "{" + states.map(\.rawValue).joined(separator: ",") + "}"
        return try select("SELECT \(ScheduledStart.storedColumns) FROM scheduled_starts WHERE state = ANY($1::text[]) ORDER BY send_at, id", [text])
    }

    /// How many starts are stored, in any state.
    public func count() throws -> Int {
        try link.run { try $0.execute("SELECT count(*) FROM scheduled_starts").value(0, 0) }.flatMap { Int($0) } ?? 0
    }

    /// The starts of one inbound request, by ordinal.
    public func starts(ofRequest requestId: String) throws -> [ScheduledStart] {
        try select("SELECT \(ScheduledStart.storedColumns) FROM scheduled_starts WHERE request_id = $1 ORDER BY ordinal", [requestId])
    }

    /// `pending` → `sending` for this instance; false when it was not pending.
    public func claim(_ id: String, now: Int64) throws -> Bool {
        try change("UPDATE scheduled_starts SET state = 'sending', claimed_at = $2::bigint, claimed_by = $3 WHERE id = $1 AND state = 'pending'",
                   [id, String(now), instance])
    }

    /// `sending` → `sent` or `failed`, deleting the body in the same statement.
    public func finish(_ id: String, sent: Bool, notificationId: String?, status: Int?, error: String?, now: Int64) throws {
        _ = try change("""
            UPDATE scheduled_starts SET state = $2, body = NULL, notification_id = $3, upstream_status = $4::integer, error = $5, finished_at = $6::bigint
            WHERE id = $1 AND state = 'sending'
            """, [id, sent ? "sent" : "failed", notificationId, status.map(String.init), error, String(now)])
    }

    /// `pending` → `cancelled`, deleting the body; false when it was no longer pending.
    public func cancel(_ id: String, now: Int64) throws -> Bool {
        try change("UPDATE scheduled_starts SET state = 'cancelled', body = NULL, finished_at = $2::bigint WHERE id = $1 AND state = 'pending'", [id, String(now)])
    }

    private func change(_ sql: String, _ parameters: [String?]) throws -> Bool {
        try link.run { try $0.execute(sql, parameters).affectedRows == 1 }
    }

    private func select(_ sql: String, _ parameters: [String?]) throws -> [ScheduledStart] {
        let rows = try link.run { try $0.execute(sql, parameters).rows }
        return rows.compactMap { row in
            row.count == 15 ? ScheduledStart.stored(text: { row[$0] }, integer: { row[$0].flatMap { Int64($0) } }) : nil
        }
    }
}
