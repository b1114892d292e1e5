/// The tables several PushBridge instances share on one PostgreSQL database, beside the
/// audit's: the pacer's window per OpenPush app, the instances and their heartbeats, and
/// the scheduled starts. Applied once per database, safely when several instances start at
/// the same moment: in one transaction under an advisory lock, every statement written so a
/// second run changes nothing.
enum SharedSchema {
    /// The advisory lock key the schema is applied under (any fixed 64-bit number).
    static let lockKey = "7355608100"

    /// The statements, in order.
    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS pacer_windows (
            app TEXT PRIMARY KEY,
            slots BIGINT[] NOT NULL DEFAULT '{}',
            blocked_until BIGINT NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE IF NOT EXISTS instances (
            name TEXT PRIMARY KEY,
            started_at BIGINT NOT NULL,
            heartbeat_at BIGINT NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS scheduled_starts (
            id TEXT PRIMARY KEY, request_id TEXT NOT NULL, ordinal INTEGER NOT NULL, app_name TEXT NOT NULL,
            target_app TEXT NOT NULL, send_at BIGINT NOT NULL, send_date TEXT, timezone TEXT, state TEXT NOT NULL,
            activity_type TEXT, body TEXT, notification_id TEXT, upstream_status INTEGER, error TEXT,
            created_at BIGINT NOT NULL, created_by TEXT, claimed_at BIGINT, claimed_by TEXT, finished_at BIGINT)
        """,
        "CREATE INDEX IF NOT EXISTS scheduled_due ON scheduled_starts (state, send_at)",
        "CREATE INDEX IF NOT EXISTS scheduled_by_request ON scheduled_starts (request_id)",
        "CREATE INDEX IF NOT EXISTS scheduled_by_claimer ON scheduled_starts (claimed_by) WHERE state = 'sending'",
    ]

    /// Applies the schema on `db`.
    static func apply(on db: PostgresConnection) throws {
        try db.transaction {
            try db.execute("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey])
            for sql in statements { try db.execute(sql) }
        }
    }

    /// PostgreSQL's clock in Unix milliseconds, as SQL: heartbeats and the dead-instance test
    /// go by the server's clock, so instances on hosts whose clocks differ agree on them.
    static let serverNow = "(extract(epoch from clock_timestamp()) * 1000)::bigint"
}
