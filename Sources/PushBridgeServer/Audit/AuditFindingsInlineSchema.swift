/// SQLite audit migration 18 (issue 30, bytes and CPU written per request): a request's
/// findings are stored inline in its intent, one column of `request_log`, ``column``: a JSON
/// array of `[field, kind, severity, message]`, one element per finding in the order they were
/// made (NULL when there is none). The intent's one insert writes them; no `findings` row, and
/// none of the per-commit page rewrites of a second b-tree, is written per request.
///
/// `findings` becomes a view over that column with exactly the columns the table had
/// (`request_id`, `ordinal`, `dialect`, `route`, `source_app`, `received_at`, `field`, `kind`,
/// `severity`, `message`, `instance_name`), the intent's columns copied in as the writer copied
/// them, so every reader (`audit show`, the report's examples, readiness, the rollup
/// corrections, `audit copy`) reads what it read. `INSTEAD OF` triggers let a tool's `INSERT`
/// append a finding to its intent and a `DELETE` blank one (a blanked element is no row of the
/// view); pruning a request deletes its intent, and its findings with it.
///
/// The migration moves every old `findings` row into its intent, in ordinal order, and drops
/// the table (a finding whose intent is gone goes with the table).
enum AuditFindingsInlineSchema {
    /// The migration's number and name in `pushbridge_migrations`.
    static let sqliteNumber = 18
    static let name = "findings inline in the intent"

    /// The `request_log` column that holds a request's findings.
    static let column = "finding_list"

    /// The whole migration.
    static let sql = """
        ALTER TABLE request_log ADD COLUMN \(column) TEXT;
        UPDATE request_log SET \(column) = moved.list
            FROM (SELECT request_id, json_group_array(json_array(field, kind, severity, message)) AS list
                  FROM (SELECT request_id, ordinal, field, kind, severity, message FROM findings ORDER BY request_id, ordinal)
                  GROUP BY request_id) AS moved
            WHERE request_log.request_id = moved.request_id;
        DROP TABLE findings;

        """ + view + triggers

    /// `findings` as the table was, one row per element of an intent's ``column``.
    static let view = """
        CREATE VIEW findings AS SELECT l.request_id AS request_id, f.key AS ordinal, coalesce(l.dialect, '') AS dialect,
            coalesce(l.route, '') AS route, l.source_app AS source_app, l.received_at AS received_at,
            f.value ->> 0 AS field, f.value ->> 1 AS kind, f.value ->> 2 AS severity, f.value ->> 3 AS message,
            l.instance_name AS instance_name
            FROM request_log l JOIN json_each(l.\(column)) f WHERE f.type = 'array';

        """

    /// A tool's `INSERT INTO findings` appends to its intent's list (ordinals follow the
    /// order of the inserts); a `DELETE` blanks the element, so the others keep their ordinals.
    static let triggers = """
        CREATE TRIGGER findings_insert INSTEAD OF INSERT ON findings BEGIN
            UPDATE request_log SET \(column) = json_insert(coalesce(\(column), '[]'), '$[#]', json_array(NEW.field, NEW.kind, NEW.severity, NEW.message))
                WHERE request_id = NEW.request_id;
        END;
        CREATE TRIGGER findings_delete INSTEAD OF DELETE ON findings BEGIN
            UPDATE request_log SET \(column) = json_replace(\(column), '$[' || OLD.ordinal || ']', NULL) WHERE request_id = OLD.request_id;
        END;

        """
}
