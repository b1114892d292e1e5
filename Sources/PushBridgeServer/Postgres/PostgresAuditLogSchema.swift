/// PostgreSQL migration 9, "the audit as a log" (issue 30): the `requests` table becomes two
/// append-only tables partitioned by UTC day and a view with the old table's columns.
///
/// - `request_log`: the intent, one row per request written once (``AuditRequestColumn/intent``),
///   partitioned by RANGE (`received_at`) per UTC day; indexes `(request_id, received_at)`
///   UNIQUE (a partitioned table's unique key must hold its partition key; request ids are
///   unique by construction, and a duplicate of the same arrival is refused) and `(received_at)`.
/// - `request_outcomes`: the completion, `request_id`, the intent's `received_at` (so both
///   tables are partitioned, and dropped, by the same day) and ``AuditRequestColumn/completion``;
///   UNIQUE `(request_id, received_at)`.
/// - `requests`: a VIEW with exactly the old columns (`outcome` is `pending` while an intent has
///   no completion), so every reader keeps working. `INSTEAD OF` triggers keep the rare writes
///   that name `requests` working (`audit copy`, a scheduled start's later completion,
///   `audit prune`); the request path writes the tables themselves (``AuditPostgresLogSQL``).
/// - `audit_marks`: per instance, the received time before which every intent it wrote has its
///   completion (``AuditPostgresRecovery``): recovery reads the log from there, not all of it.
///
/// Partitions: each table has a DEFAULT partition, so an insert never fails for want of a day,
/// and `pushbridge_audit_day(day)` makes one day's partition of both tables, moving that
/// day's rows out of the DEFAULT partitions first (it is what ``AuditPostgresPartitions``
/// calls ahead of time, and what this migration calls for every day the old table holds).
/// Retention drops a day's partitions whole.
enum PostgresAuditLogSchema {
    /// PostgreSQL audit migration 9.
    static let number = 9
    /// The migration's name.
    static let name = "the audit as a log"

    /// The advisory lock `pushbridge_audit_day` takes, so two instances never make one day twice ("PushLogD").
    static let partitionLockKey: Int64 = 0x5075_7368_4C6F_6744

    /// The migration.
    static let migration = PostgresMigrator.Migration(number, name, sql: sql)

    private static var intentDeclarations: String {
        AuditRequestColumn.intent.map { column in
            // `UNIQUE` lives in the partitioned index below, not on the column.
            column == .requestId ? "request_id TEXT NOT NULL" : column.declaration(sqlite: false)
        }.map { "    " + $0 }.joined(separator: ",\n")
    }

    private static var completionDeclarations: String {
        AuditRequestColumn.completion.map { "    " + $0.declaration(sqlite: false) }.joined(separator: ",\n")
    }

    private static let intentNames = AuditRequestColumn.intent.map(\.name)
    private static let completionNames = AuditRequestColumn.completion.map(\.name)

    /// The view's select list: every column of the old table, in its order.
    private static var viewColumns: String {
        (["l.id"] + AuditRequestColumn.allCases.map { column -> String in
            switch column {
            case .outcome: "coalesce(o.outcome, 'pending') AS outcome"
            case _ where AuditRequestColumn.completion.contains(column): "o.\(column.name)"
            default: "l.\(column.name)"
            }
        }).joined(separator: ", ")
    }

    static var sql: String {
        let intents = intentNames.joined(separator: ", ")
        let completions = completionNames.joined(separator: ", ")
        let newIntents = intentNames.map { "NEW.\($0)" }.joined(separator: ", ")
        let newCompletions = completionNames.map { "NEW.\($0)" }.joined(separator: ", ")
        let upsertOutcome = completionNames.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let changedIntent = intentNames.filter { $0 != "request_id" && $0 != "received_at" }
        return """
            CREATE SEQUENCE request_log_id_seq;
            CREATE TABLE request_log (
                id BIGINT NOT NULL DEFAULT nextval('request_log_id_seq'),
            \(intentDeclarations)
            ) PARTITION BY RANGE (received_at);
            ALTER SEQUENCE request_log_id_seq OWNED BY request_log.id;
            CREATE TABLE request_log_default PARTITION OF request_log DEFAULT;
            CREATE UNIQUE INDEX request_log_id ON request_log (request_id, received_at);
            CREATE INDEX request_log_time ON request_log (received_at);
            CREATE TABLE request_outcomes (
                request_id TEXT NOT NULL,
                received_at BIGINT NOT NULL,
            \(completionDeclarations)
            ) PARTITION BY RANGE (received_at);
            CREATE TABLE request_outcomes_default PARTITION OF request_outcomes DEFAULT;
            CREATE UNIQUE INDEX request_outcomes_id ON request_outcomes (request_id, received_at);
            CREATE TABLE audit_marks (
                instance_name TEXT PRIMARY KEY,
                complete_before BIGINT NOT NULL
            );
            \(dayFunction())
            SELECT pushbridge_audit_day(d) FROM (SELECT DISTINCT received_at / 86400000 AS d FROM requests) AS days;
            INSERT INTO request_log (id, \(intents)) SELECT id, \(intents) FROM requests ORDER BY id;
            SELECT setval('request_log_id_seq', (SELECT max(id) FROM requests)) WHERE EXISTS (SELECT 1 FROM requests);
            INSERT INTO request_outcomes (request_id, received_at, \(completions))
                SELECT request_id, received_at, \(completions) FROM requests WHERE outcome <> 'pending';
            DROP TABLE requests;
            CREATE VIEW requests AS
                SELECT \(viewColumns)
                FROM request_log l LEFT JOIN request_outcomes o ON o.request_id = l.request_id AND o.received_at = l.received_at;
            ALTER VIEW requests ALTER COLUMN finding_count SET DEFAULT 0;
            CREATE FUNCTION pushbridge_requests_write() RETURNS trigger LANGUAGE plpgsql AS $fn$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    DELETE FROM request_outcomes WHERE request_id = OLD.request_id AND received_at = OLD.received_at;
                    DELETE FROM request_log WHERE request_id = OLD.request_id AND received_at = OLD.received_at;
                    RETURN OLD;
                END IF;
                IF TG_OP = 'INSERT' THEN
                    INSERT INTO request_log (\(intents)) VALUES (\(newIntents));
                ELSIF (\(changedIntent.map { "NEW.\($0)" }.joined(separator: ", "))) IS DISTINCT FROM (\(changedIntent.map { "OLD.\($0)" }.joined(separator: ", "))) THEN
                    UPDATE request_log SET (\(changedIntent.joined(separator: ", "))) = (\(changedIntent.map { "NEW.\($0)" }.joined(separator: ", ")))
                    WHERE request_id = OLD.request_id AND received_at = OLD.received_at;
                END IF;
                IF coalesce(NEW.outcome, 'pending') <> 'pending' THEN
                    INSERT INTO request_outcomes (request_id, received_at, \(completions)) VALUES (NEW.request_id, NEW.received_at, \(newCompletions))
                    ON CONFLICT (request_id, received_at) DO UPDATE SET \(upsertOutcome);
                END IF;
                RETURN NEW;
            END $fn$;
            CREATE TRIGGER requests_write INSTEAD OF INSERT OR UPDATE OR DELETE ON requests FOR EACH ROW EXECUTE FUNCTION pushbridge_requests_write();
            """
    }

    /// `pushbridge_audit_day(day)`: makes one day's partition of both tables (see the type's
    /// comment). `orReplace`: redefines it (a later migration); `settings`: PL/pgSQL run right
    /// after each new partition is created, its name `parent || '_' || suffix` (nothing here,
    /// in migration 9: the text is the one migration 9 shipped).
    static func dayFunction(orReplace: Bool = false, settings: String = "") -> String {
        let text = """
            CREATE \(orReplace ? "OR REPLACE " : "")FUNCTION pushbridge_audit_day(day BIGINT) RETURNS BOOLEAN LANGUAGE plpgsql AS $fn$
            DECLARE
                suffix TEXT := to_char(to_timestamp(day * 86400) AT TIME ZONE 'UTC', 'YYYYMMDD');
                low BIGINT := day * 86400000;
                high BIGINT := (day + 1) * 86400000;
                parent TEXT;
            BEGIN
                PERFORM pg_advisory_xact_lock(\(partitionLockKey));
                IF to_regclass('request_log_' || suffix) IS NOT NULL THEN RETURN false; END IF;
                FOREACH parent IN ARRAY ARRAY['request_log', 'request_outcomes'] LOOP
                    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', parent || '_' || suffix, parent);
            \(settings)
                    EXECUTE format('WITH moved AS (DELETE FROM %I WHERE received_at >= %s AND received_at < %s RETURNING *) INSERT INTO %I SELECT * FROM moved',
                                   parent || '_default', low, high, parent || '_' || suffix);
                    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (received_at >= %s AND received_at < %s)',
                                   parent || '_' || suffix, parent || '_' || suffix || '_day', low, high);
                    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', parent, parent || '_' || suffix, low, high);
                END LOOP;
                RETURN true;
            END $fn$;
            """
        // Migration 9's text had no line for the settings.
        return settings.isEmpty ? text.replacingOccurrences(of: "\n\n", with: "\n") : text
    }
}
