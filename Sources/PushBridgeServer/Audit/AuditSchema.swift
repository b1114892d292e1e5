/// The audit's numbered migrations.
///
/// Designed for the diff reports over a million rows: every report filters by time and
/// groups by dialect/route, app or finding field, so those have indexes that cover the
/// grouping (the report reads the index, not the 2 KB rows). Ids are time-sortable, so the
/// unique index on `request_id` and the time indexes grow at their right edge.
enum AuditSchema {
    static var migrator: SQLiteMigrator {
        var migrator = SQLiteMigrator()
        migrator.register(1, "requests and findings", sql: requestsAndFindings)
        migrator.register(2, "shadow comparisons and scheduled sends", sql: shadowAndScheduled)
        migrator.register(3, "report indexes", sql: reportIndexes)
        migrator.register(4, "shadow comparison bodies", sql: shadowBodies)
        migrator.register(5, "app names", sql: appNames)
        migrator.register(6, "instance names", sql: instanceNames)
        migrator.register(7, "activity ledger", sql: ActivityLedgerSQL.schema(sqlite: true))
        migrator.register(9, "rollout rollbacks", sql: rolloutRollbacks)
        migrator.register(10, "activity records keyed by OpenPush app", sql: ActivityLedgerSQL.keyedByOpenPushApp(sqlite: true))
        migrator.register(StageSchema.sqliteNumber, StageSchema.name, sql: StageSchema.sql(sqlite: true))
        migrator.register(AuditLogSchema.number, AuditLogSchema.name, sql: AuditLogSchema.sql)
        migrator.register(AuditRollupSchema.sqliteNumber, AuditRollupSchema.name, AuditRollupSchema.migrateSQLite)
        migrator.register(AuditRollupReadinessSchema.sqliteNumber, AuditRollupReadinessSchema.name, AuditRollupReadinessSchema.migrateSQLite)
        migrator.register(AuditScheduledIndexSchema.sqliteNumber, AuditScheduledIndexSchema.name, sql: AuditScheduledIndexSchema.sql)
        migrator.register(AuditAnswerOnceSchema.sqliteNumber, AuditAnswerOnceSchema.name, sql: AuditAnswerOnceSchema.sql)
        migrator.register(AuditRollupHourSchema.sqliteNumber, AuditRollupHourSchema.name, AuditRollupHourSchema.migrateSQLite)
        migrator.register(AuditFindingsInlineSchema.sqliteNumber, AuditFindingsInlineSchema.name, sql: AuditFindingsInlineSchema.sql)
        migrator.register(AuditRollupShadowSchema.sqliteNumber, AuditRollupShadowSchema.name, sql: AuditRollupShadowSchema.sqliteSQL)
        migrator.register(AuditRollupMinuteSendsSchema.sqliteNumber, AuditRollupMinuteSendsSchema.name, AuditRollupMinuteSendsSchema.migrateSQLite)
        migrator.register(AuditRollupMarkSchema.sqliteNumber, AuditRollupMarkSchema.name, sql: AuditRollupMarkSchema.sqliteSQL)
        migrator.register(AuditOutcomeKeySchema.sqliteNumber, AuditOutcomeKeySchema.name, sql: AuditOutcomeKeySchema.sql)
        migrator.register(AuditLogMinutesSchema.sqliteNumber, AuditLogMinutesSchema.name, sql: AuditLogMinutesSchema.sql)
        return migrator
    }

    /// The `requests` table from its one declaration (``AuditRequestColumn``), as migration 1 made it.
    static let requestsAndFindings = AuditRequestColumn.createTable(sqlite: true) + """
        CREATE INDEX requests_by_time ON requests (received_at);
        CREATE INDEX requests_by_route ON requests (dialect, route, received_at);
        CREATE INDEX requests_by_app ON requests (source_app, received_at);
        CREATE INDEX requests_pending ON requests (received_at) WHERE outcome = 'pending';
        CREATE TABLE findings (
            request_id TEXT NOT NULL,
            ordinal INTEGER NOT NULL,
            dialect TEXT NOT NULL,
            route TEXT NOT NULL,
            source_app TEXT,
            received_at INTEGER NOT NULL,
            field TEXT NOT NULL,
            kind TEXT NOT NULL,
            severity TEXT NOT NULL,
            message TEXT NOT NULL,
            PRIMARY KEY (request_id, ordinal)
        ) WITHOUT ROWID;
        CREATE INDEX findings_by_field ON findings (dialect, route, field, kind, received_at, source_app);
        """

    /// Filled by the shadow and scheduling modes.
    static let shadowAndScheduled = """
        CREATE TABLE shadow_comparisons (
            request_id TEXT PRIMARY KEY,
            compared_at INTEGER NOT NULL,
            dialect TEXT,
            route TEXT,
            source_app TEXT,
            verdict TEXT NOT NULL,
            primary_provider TEXT NOT NULL,
            primary_status INTEGER,
            primary_latency_ms REAL,
            primary_error TEXT,
            shadow_provider TEXT NOT NULL,
            shadow_status INTEGER,
            shadow_latency_ms REAL,
            shadow_error TEXT,
            differences TEXT
        );
        CREATE INDEX shadow_by_verdict ON shadow_comparisons (verdict, compared_at);
        CREATE INDEX shadow_by_time ON shadow_comparisons (compared_at);
        CREATE TABLE scheduled_sends (
            request_id TEXT NOT NULL,
            ordinal INTEGER NOT NULL,
            send_at INTEGER NOT NULL,
            state TEXT NOT NULL,
            target_app TEXT,
            request TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            claimed_at INTEGER,
            sent_at INTEGER,
            upstream_status INTEGER,
            attempts TEXT,
            error_message TEXT,
            PRIMARY KEY (request_id, ordinal)
        ) WITHOUT ROWID;
        CREATE INDEX scheduled_due ON scheduled_sends (state, send_at);
        """

    /// For the diff reports: outcomes and statuses read from a covering index, and the
    /// few rows with retries found without reading the others.
    static let reportIndexes = """
        CREATE INDEX requests_outcomes ON requests (outcome, upstream_status, dialect, route, received_at, source_app);
        CREATE INDEX requests_retried ON requests (received_at) WHERE json_array_length(attempts) > 1;
        """

    /// Shadow comparisons: both answers' bodies (redacted) next to their statuses. Scheduled starts live
    /// in the scheduler's own file (their real requests must not enter the audit), so
    /// `scheduled_sends` stays empty; the audit shows them as `requests` rows whose outcome
    /// goes from `scheduled` to `sent`.
    static let shadowBodies = """
        ALTER TABLE shadow_comparisons ADD COLUMN primary_body TEXT;
        ALTER TABLE shadow_comparisons ADD COLUMN shadow_body TEXT;
        """

    /// The configured app's name next to the caller's source app id, so `audit list`,
    /// `report` and `readiness` name apps as the configuration does. Null for requests no
    /// app accepted and for rows written before it.
    static let appNames = AuditRequestColumn.addColumns(sqliteMigration: 5)

    /// The instance that wrote each row (`instance_name` in the configuration), as in the
    /// PostgreSQL audit several instances share.
    static let instanceNames = AuditRequestColumn.addColumns(sqliteMigration: 6) + """
        ALTER TABLE findings ADD COLUMN instance_name TEXT;
        ALTER TABLE shadow_comparisons ADD COLUMN instance_name TEXT;
        ALTER TABLE scheduled_sends ADD COLUMN instance_name TEXT;
        """

    /// The apps whose rollout was rolled back (one row each, until resumed): every instance
    /// sharing the audit sends their new starts to the legacy provider.
    static let rolloutRollbacks = """
        CREATE TABLE rollout_rollbacks (
            app_name TEXT PRIMARY KEY,
            rolled_back_at INTEGER NOT NULL,
            threshold TEXT NOT NULL,
            evidence TEXT NOT NULL,
            instance_name TEXT
        );
        """
}
