/// PostgreSQL audit migration 14, the same shape as SQLite's migration 18
/// (``AuditFindingsInlineSchema``): a request's findings are stored inline in its intent,
/// `request_log.finding_list` (TEXT, as the writer sends it: a JSON array of
/// `[field, kind, severity, message]`, NULL when there is none). The intent's one insert
/// writes them (``AuditPostgresLogSQL/intent(of:findings:)``); no `findings` row, and no
/// second statement or b-tree of its own, per request.
///
/// `findings` becomes a view over that column with the table's columns, names and types, so
/// every reader (`audit show`, the report's examples, readiness, the rollup corrections of
/// pruning, `audit copy`'s column check) reads what it read; a lookup by `request_id` reads
/// the intent's index. Dropping a day's partitions drops that day's findings with it. An
/// `INSTEAD OF` trigger lets a tool's `INSERT INTO findings` append to its intent's list and a
/// `DELETE` blank an element (a blanked element is no row of the view, the others keep their
/// ordinals). `audit copy` merges a file's findings into the lists itself
/// (``AuditCopy/upsertFindingList(rows:types:)``): a view takes no `ON CONFLICT`.
///
/// The migration moves every old `findings` row into its intent, in ordinal order, and drops
/// the table (a finding whose intent is gone goes with the table). It also sets the log's
/// partitions' ``toastTupleTarget`` (now and for each day made after it), so a larger intent is
/// not compressed on every insert.
extension AuditFindingsInlineSchema {
    /// The migration's number in PostgreSQL's `pushbridge_migrations`.
    static let postgresNumber = 14

    /// The PostgreSQL migration.
    static let postgresMigration = PostgresMigrator.Migration(postgresNumber, name, sql: postgresSQL)

    /// The whole PostgreSQL migration.
    static let postgresSQL = """
        ALTER TABLE request_log ADD COLUMN \(column) TEXT;
        UPDATE request_log l SET \(column) = moved.list
            FROM (SELECT request_id, json_agg(json_build_array(field, kind, severity, message) ORDER BY ordinal)::text AS list
                  FROM findings GROUP BY request_id) AS moved
            WHERE l.request_id = moved.request_id;
        DROP TABLE findings;
        \(postgresView)
        CREATE FUNCTION pushbridge_findings_write() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                UPDATE request_log SET \(column) = jsonb_set(\(column)::jsonb, ARRAY[OLD.ordinal::text], 'null'::jsonb)::text
                    WHERE request_id = OLD.request_id AND received_at = OLD.received_at;
                RETURN OLD;
            END IF;
            UPDATE request_log SET \(column) = (coalesce(\(column)::jsonb, '[]'::jsonb)
                    || jsonb_build_array(jsonb_build_array(NEW.field, NEW.kind, NEW.severity, NEW.message)))::text
                WHERE request_id = NEW.request_id;
            RETURN NEW;
        END $fn$;
        CREATE TRIGGER findings_write INSTEAD OF INSERT OR DELETE ON findings FOR EACH ROW EXECUTE FUNCTION pushbridge_findings_write();
        DO $do$ DECLARE part TEXT; BEGIN
            FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                        WHERE i.inhparent IN ('request_log'::regclass, 'request_outcomes'::regclass) LOOP
                EXECUTE format('ALTER TABLE %I SET (toast_tuple_target = \(toastTupleTarget))', part);
            END LOOP;
        END $do$;
        \(PostgresAuditLogSchema.dayFunction(orReplace: true,
                                             settings: "EXECUTE format('ALTER TABLE %I SET (toast_tuple_target = \(toastTupleTarget))', parent || '_' || suffix);"))

        """

    /// The `toast_tuple_target` of every day partition of the log (and of the DEFAULT ones),
    /// set by this migration and by `pushbridge_audit_day` after it: PostgreSQL's largest. An
    /// intent with its findings is about 2 KB (2,043 bytes with the bench's OneSignal start and
    /// its three findings), just over the 2,032 bytes past which the toaster tries to compress
    /// a row's text columns on every insert, in vain for such short JSON (none came out
    /// smaller); below this target it leaves the row as it is.
    static let toastTupleTarget = 8160

    /// `findings` as the table was, one row per element of an intent's ``column``.
    static let postgresView = """
        CREATE VIEW findings AS SELECT l.request_id AS request_id, f.ordinality - 1 AS ordinal, coalesce(l.dialect, '') AS dialect,
            coalesce(l.route, '') AS route, l.source_app AS source_app, l.received_at AS received_at,
            f.value ->> 0 AS field, f.value ->> 1 AS kind, f.value ->> 2 AS severity, f.value ->> 3 AS message,
            l.instance_name AS instance_name
            FROM request_log l CROSS JOIN LATERAL json_array_elements(l.\(column)::json) WITH ORDINALITY AS f(value, ordinality)
            WHERE json_typeof(f.value) = 'array';
        """
}
