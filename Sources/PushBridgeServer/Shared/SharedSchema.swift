/// The tables several PushBridge instances share on one PostgreSQL database, beside the
/// audit's: the instances and their heartbeats, and the scheduled starts. Migrations 100 and
/// up of ``PostgresSchema`` (the pacer's, 100 and 103, are ``PostgresSendPacer``'s).
enum SharedSchema {
    /// The shared state's migrations.
    static let migrations: [PostgresMigrator.Migration] = [
        .init(101, "instances and their heartbeats", sql: """
            CREATE TABLE instances (
                name TEXT PRIMARY KEY,
                started_at BIGINT NOT NULL,
                heartbeat_at BIGINT NOT NULL);
            """),
        .init(102, "scheduled starts", sql: """
            CREATE TABLE scheduled_starts (
                id TEXT PRIMARY KEY, request_id TEXT NOT NULL, ordinal INTEGER NOT NULL, app_name TEXT NOT NULL,
                target_app TEXT NOT NULL, send_at BIGINT NOT NULL, send_date TEXT, timezone TEXT, state TEXT NOT NULL,
                activity_type TEXT, body TEXT, notification_id TEXT, upstream_status INTEGER, error TEXT,
                created_at BIGINT NOT NULL, created_by TEXT, claimed_at BIGINT, claimed_by TEXT, finished_at BIGINT);
            CREATE INDEX starts_due ON scheduled_starts (state, send_at);
            CREATE INDEX starts_by_request ON scheduled_starts (request_id);
            CREATE INDEX starts_by_claimer ON scheduled_starts (claimed_by) WHERE state = 'sending';
            """),
    ]

    /// Applies every pending migration of the whole schema (audit and shared) on `db`.
    static func apply(on db: PostgresConnection) throws {
        try PostgresSchema.migrator.migrate(db)
    }

    /// PostgreSQL's clock in Unix milliseconds, as SQL: heartbeats and the dead-instance test
    /// go by the server's clock, so instances on hosts whose clocks differ agree on them.
    static let serverNow = "(extract(epoch from clock_timestamp()) * 1000)::bigint"
}
