/// PushBridge's PostgreSQL schema: every migration, in one list.
///
/// Numbers 1–99 are the audit (requests, findings, attempts, shadow comparisons, the
/// scheduled-start mirror); 100 and up are the state several instances share. Append a new
/// migration with the next free number in its range; never edit or renumber one that has
/// shipped. Every row an instance writes carries its `instance_name`.
///
/// The columns match the SQLite audit's (``AuditSchema``) name for name, so one statement
/// layer reads and writes both: integers are `BIGINT` (Unix milliseconds), reals `DOUBLE
/// PRECISION`, JSON documents (`attempts`, `differences`) `TEXT` as written.
enum PostgresSchema {
    /// Every migration, each owner's (the migrator applies them in ascending order).
    static let migrations: [PostgresMigrator.Migration] = audit + InstanceSQL.migrations + ScheduledStartSchema.postgresMigrations + PostgresSendPacer.migrations

    /// The migrator for ``migrations``.
    static var migrator: PostgresMigrator { PostgresMigrator(migrations) }

    /// Applies every pending migration of the whole schema (the audit and the state several
    /// instances share) on `db`.
    static func apply(on db: PostgresConnection) throws {
        try migrator.migrate(db)
    }

    /// The audit's tables and the indexes the reports read.
    static let audit: [PostgresMigrator.Migration] = [
        .init(1, "audit requests and findings", sql: AuditRequestColumn.createTable(sqlite: false) + """
            CREATE INDEX requests_by_time ON requests (received_at);
            CREATE INDEX requests_by_route ON requests (dialect, route, received_at);
            CREATE INDEX requests_by_app ON requests (source_app, received_at);
            CREATE INDEX requests_pending ON requests (instance_name, received_at) WHERE outcome = 'pending';
            CREATE INDEX requests_outcomes ON requests (outcome, upstream_status, dialect, route, received_at, source_app);
            CREATE TABLE findings (
                request_id TEXT NOT NULL,
                ordinal BIGINT NOT NULL,
                dialect TEXT NOT NULL,
                route TEXT NOT NULL,
                source_app TEXT,
                received_at BIGINT NOT NULL,
                field TEXT NOT NULL,
                kind TEXT NOT NULL,
                severity TEXT NOT NULL,
                message TEXT NOT NULL,
                instance_name TEXT,
                PRIMARY KEY (request_id, ordinal)
            );
            CREATE INDEX findings_by_field ON findings (dialect, route, field, kind, received_at, source_app);
            """),
        .init(2, "audit shadow comparisons and scheduled-start mirror", sql: """
            CREATE TABLE shadow_comparisons (
                request_id TEXT PRIMARY KEY,
                compared_at BIGINT NOT NULL,
                dialect TEXT,
                route TEXT,
                source_app TEXT,
                verdict TEXT NOT NULL,
                primary_provider TEXT NOT NULL,
                primary_status BIGINT,
                primary_latency_ms DOUBLE PRECISION,
                primary_error TEXT,
                shadow_provider TEXT NOT NULL,
                shadow_status BIGINT,
                shadow_latency_ms DOUBLE PRECISION,
                shadow_error TEXT,
                differences TEXT,
                primary_body TEXT,
                shadow_body TEXT,
                instance_name TEXT
            );
            CREATE INDEX shadow_by_verdict ON shadow_comparisons (verdict, compared_at);
            CREATE INDEX shadow_by_time ON shadow_comparisons (compared_at);
            CREATE TABLE scheduled_sends (
                request_id TEXT NOT NULL,
                ordinal BIGINT NOT NULL,
                send_at BIGINT NOT NULL,
                state TEXT NOT NULL,
                target_app TEXT,
                request TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                claimed_at BIGINT,
                sent_at BIGINT,
                upstream_status BIGINT,
                attempts TEXT,
                error_message TEXT,
                instance_name TEXT,
                PRIMARY KEY (request_id, ordinal)
            );
            CREATE INDEX scheduled_due ON scheduled_sends (state, send_at);
            """),
        .init(3, "SQLite's functions the report reads with", sql: sqliteFunctions),
        .init(4, "activity ledger", sql: ActivityLedgerSQL.schema(sqlite: false)),
        .init(6, "rollout rollbacks", sql: """
            CREATE TABLE rollout_rollbacks (
                app_name TEXT PRIMARY KEY,
                rolled_back_at BIGINT NOT NULL,
                threshold TEXT NOT NULL,
                evidence TEXT NOT NULL,
                instance_name TEXT
            );
            """),
        .init(7, "activity records keyed by OpenPush app", sql: ActivityLedgerSQL.keyedByOpenPushApp(sqlite: false)),
        .init(StageSchema.postgresNumber, StageSchema.name, sql: StageSchema.sql(sqlite: false)),
        PostgresAuditLogSchema.migration,
        .init(AuditRollupSchema.postgresNumber, AuditRollupSchema.name, sql: AuditRollupSchema.postgresSQL),
        .init(AuditRollupReadinessSchema.postgresNumber, AuditRollupReadinessSchema.name, sql: AuditRollupReadinessSchema.postgresSQL),
        .init(AuditScheduledIndexSchema.postgresNumber, AuditScheduledIndexSchema.name, sql: AuditScheduledIndexSchema.sql),
        .init(AuditRollupHourSchema.postgresNumber, AuditRollupHourSchema.name, sql: AuditRollupHourSchema.postgresSQL),
        AuditFindingsInlineSchema.postgresMigration,
        .init(AuditRollupShadowSchema.postgresNumber, AuditRollupShadowSchema.name, sql: AuditRollupShadowSchema.postgresSQL),
        .init(AuditRollupMinuteSendsSchema.postgresNumber, AuditRollupMinuteSendsSchema.name, sql: AuditRollupMinuteSendsSchema.postgresSQL),
        AuditRollupMarkSchema.postgresMigration,
    ]

    /// The few SQLite functions the report and readiness queries use, defined over the same
    /// `TEXT` JSON columns, so that one set of queries reads both engines: `json_array_length`,
    /// `json_each` over an array (`key` its index, `value` the element as JSON text),
    /// `json_extract` of a number (SQLite's `$.a` / `$[1].a` paths are SQL/JSON paths too),
    /// `group_concat`, two-argument `max`, and `sum` of a boolean (SQLite counts true as 1).
    static let sqliteFunctions = """
        CREATE FUNCTION json_array_length(text) RETURNS integer
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT json_array_length($1::json)';
        CREATE FUNCTION json_each(text) RETURNS TABLE (key bigint, value text)
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT ordinality - 1, element::text FROM json_array_elements($1::json) WITH ORDINALITY AS e(element, ordinality)';
        CREATE FUNCTION json_extract(text, text) RETURNS double precision
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT (jsonb_path_query_first($1::jsonb, $2::jsonpath) #>> ''{}'')::double precision';
        CREATE FUNCTION group_concat_step(text, text) RETURNS text
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT CASE WHEN $2 IS NULL THEN $1 WHEN $1 IS NULL THEN $2 ELSE $1 || '','' || $2 END';
        CREATE AGGREGATE group_concat(text) (SFUNC = group_concat_step, STYPE = text);
        CREATE FUNCTION max(double precision, double precision) RETURNS double precision
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT greatest($1, $2)';
        CREATE FUNCTION sum_boolean_step(bigint, boolean) RETURNS bigint
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT $1 + CASE WHEN $2 THEN 1 ELSE 0 END';
        CREATE AGGREGATE sum(boolean) (SFUNC = sum_boolean_step, STYPE = bigint, INITCOND = '0');
        CREATE INDEX requests_retried ON requests (received_at) WHERE json_array_length(attempts) > 1;
        """
}
