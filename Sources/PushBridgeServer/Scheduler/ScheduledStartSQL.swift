/// Every statement on `scheduled_starts`, written once for both engines with `?` marks
/// (``AuditSQL`` numbers them for PostgreSQL); the one difference, PostgreSQL's
/// `FOR UPDATE SKIP LOCKED` on a claim, is a suffix. Each state change is guarded by the
/// state it leaves, so two schedulers (or a restarted one) never both claim a start.
enum ScheduledStartSQL {
    /// The columns read back, as a select list (``ScheduledStartSchema/selected``).
    static let selectList = ScheduledStartSchema.selected.joined(separator: ", ")

    /// Stores one new `pending` start (values: ``insertValues(_:stored:now:instance:)``).
    static let insert = """
        INSERT INTO scheduled_starts (id, request_id, ordinal, app_name, target_app, send_at, send_date, timezone, state, activity_type, body, created_at, created_by)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)
        """

    /// The values of ``insert`` for `start`.
    static func insertValues(_ s: ScheduledStart, stored: (activityType: String, body: String), now: Int64, instance: String) -> [SQLiteValue] {
        [.text(s.id), .text(s.requestId), .integer(Int64(s.ordinal)), .text(s.appName), .text(s.targetApp), .integer(s.sendAt),
         .text(s.sendDate), .text(s.timezone), .text(stored.activityType), .text(stored.body), .integer(now), .text(instance)]
    }

    /// Claims (`pending` → `sending`) up to `limit` starts due at `now` for `instance`, in one
    /// statement returning them. On PostgreSQL rows another instance is claiming at this
    /// moment are skipped, not waited for; SQLite has one writer at a time.
    static func claimDue(now: Int64, limit: Int, instance: String, postgres: Bool) -> (sql: String, values: [SQLiteValue]) {
        ("""
        UPDATE scheduled_starts SET state = 'sending', claimed_at = ?, claimed_by = ?
        WHERE id IN (SELECT id FROM scheduled_starts WHERE state = 'pending' AND send_at <= ?
                     ORDER BY send_at LIMIT ?\(postgres ? " FOR UPDATE SKIP LOCKED" : ""))
        RETURNING \(selectList)
        """, [.integer(now), .text(instance), .integer(now), .integer(Int64(limit))])
    }

    /// The earliest pending send time.
    static let nextSendAt = "SELECT MIN(send_at) FROM scheduled_starts WHERE state = 'pending'"

    /// How many starts are still to send (`pending`, or `sending` and not finished) whose send
    /// time is before `?` (Unix ms): the scheduler's overdue gauge.
    static let overdue = "SELECT count(*) FROM scheduled_starts WHERE state IN ('pending', 'sending') AND send_at < ?"

    /// How many starts are stored, in any state.
    static let count = "SELECT count(*) FROM scheduled_starts"

    /// The starts in `states` (all when empty), by send time.
    static func list(states: [ScheduledStart.State]) -> (sql: String, values: [SQLiteValue]) {
        let filter = states.isEmpty ? "" : "WHERE state IN (\(states.map { _ in "?" }.joined(separator: ", "))) "
        return ("SELECT \(selectList) FROM scheduled_starts \(filter)ORDER BY send_at, id", states.map { .text($0.rawValue) })
    }

    /// The starts of one inbound request, by ordinal.
    static let ofRequest = "SELECT \(selectList) FROM scheduled_starts WHERE request_id = ? ORDER BY ordinal"

    /// One start by id.
    static let byId = "SELECT \(selectList) FROM scheduled_starts WHERE id = ?"

    /// `sending` → `sent` or `failed` with OpenPush's answer, deleting the body in the same statement.
    static func finish(_ id: String, sent: Bool, notificationId: String?, status: Int?, error: String?, now: Int64) -> (sql: String, values: [SQLiteValue]) {
        ("""
        UPDATE scheduled_starts SET state = ?, body = NULL, notification_id = ?, upstream_status = ?, error = ?, finished_at = ?
        WHERE id = ? AND state = 'sending'
        """, [.text(sent ? "sent" : "failed"), notificationId.map(SQLiteValue.text) ?? .null, status.map { .integer(Int64($0)) } ?? .null,
              error.map(SQLiteValue.text) ?? .null, .integer(now), .text(id)])
    }

    /// `pending` → `sending` for one start (values: now, instance, id).
    static let claim = "UPDATE scheduled_starts SET state = 'sending', claimed_at = ?, claimed_by = ? WHERE id = ? AND state = 'pending'"

    /// `pending` → `cancelled`, deleting the body.
    static let cancel = "UPDATE scheduled_starts SET state = 'cancelled', body = NULL, finished_at = ? WHERE id = ? AND state = 'pending'"

    /// `sending` → `pending` for the starts `claimedBy` claimed (every claim when nil: a
    /// scheduler file only one process uses), to be sent again with their own idempotency key.
    static func release(claimedBy instance: String?) -> (sql: String, values: [SQLiteValue]) {
        let sql = "UPDATE scheduled_starts SET state = 'pending', claimed_at = NULL, claimed_by = NULL WHERE state = 'sending'"
        guard let instance else { return (sql, []) }
        return (sql + " AND claimed_by = ?", [.text(instance)])
    }

    /// `pushbridge audit copy` moving one start of a scheduler file into the shared table
    /// (PostgreSQL only, `$n` marks): `$1`…`$16` the file's columns `id` … `finished_at` as
    /// ``AuditCopy`` reads them, `$17` the state it is moved in, `$18` `created_by`. A start
    /// the table has is left alone, except one still `pending` there that the file has
    /// finished since. Returns whether the row was inserted (`t`) or updated (`f`); no row
    /// when it was left alone.
    static let moveFromFile = """
        INSERT INTO scheduled_starts (id, request_id, ordinal, app_name, target_app, send_at, send_date, timezone, state, activity_type, body,
                                      notification_id, upstream_status, error, created_at, finished_at, created_by)
        VALUES ($1, $2, $3::integer, $4, $5, $6::bigint, $7, $8, $17, $10, $11, $12, $13::integer, $14, $15::bigint, $16::bigint, $18)
        ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, body = NULL, notification_id = EXCLUDED.notification_id,
            upstream_status = EXCLUDED.upstream_status, error = EXCLUDED.error, finished_at = EXCLUDED.finished_at
        WHERE scheduled_starts.state = 'pending' AND $9 IN ('sent', 'failed', 'cancelled')
        RETURNING (xmax = 0)
        """

    /// The starts in `rows` (of ``selectList``), skipping any a required column of is missing.
    static func starts(_ rows: [[SQLiteValue]]) -> [ScheduledStart] {
        rows.compactMap { ScheduledStart(row: Row(values: $0)) }
    }

    /// One row of ``selectList``, read by column name.
    struct Row {
        private static let index = Dictionary(uniqueKeysWithValues: ScheduledStartSchema.selected.enumerated().map { ($1, $0) })
        var values: [SQLiteValue]

        /// The value of column `name` (NULL when the row has no such column).
        subscript(_ name: String) -> SQLiteValue {
            guard let i = Self.index[name], i < values.count else { return .null }
            return values[i]
        }
    }
}
