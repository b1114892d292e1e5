/// SQLite audit migration 12, "the audit as a log" (issue 30): a request's audit is appended,
/// never updated on the hot path.
///
/// - `request_log`: the intent, one row per request, written once by `begin` (or by `record`
///   with its outcome): every ``AuditRequestColumn/intent`` column. Rowid key (grows with
///   time) and two secondary indexes, `request_log_id` (unique `request_id`) and
///   `request_log_time` (`received_at`).
/// - `request_outcomes`: the completion, one row per request, written once by `finish` (or
///   with the intent by `record`): `request_id`, `received_at` (copied from the intent, so
///   both tables are pruned by the same time) and every ``AuditRequestColumn/completion``
///   column. Rowid key and one secondary index, `request_outcomes_id` (unique `request_id`),
///   until migration 22 keyed each outcome row by its intent's id (``AuditOutcomeKeySchema``).
/// - `requests`: a view with exactly the columns the table had (`id` and every
///   ``AuditRequestColumn``, in order), an intent without its outcome reading `pending`, so
///   every reader keeps working. `INSTEAD OF` triggers let a tool's `INSERT`, `UPDATE` and
///   `DELETE` on `requests` (an operator's script, `bench/prune.sh`) change the two tables
///   as they did the one.
/// - `audit_marks`: per instance, the log id through which every intent has its outcome, so
///   recovery reads only the log rows after it (``AuditRecovery/recoverLog(_:instance:now:)``).
///
/// The old table's rows move: every row's intent columns to `request_log` (same `id`), every
/// row not `pending` to `request_outcomes`; a `pending` row stays an intent without outcome,
/// so the recovery that runs right after marks it `unknown` as before. The old table and its
/// seven indexes are dropped.
enum AuditLogSchema {
    /// The migration's number and name in `pushbridge_migrations`.
    static let number = 12
    static let name = "the audit as a log"

    /// The outcome an intent without completion reads as.
    static let pending = AuditOutcome.pending.rawValue

    /// The columns of `request_outcomes` besides its rowid, in order.
    static let outcomeColumns: [AuditRequestColumn] = [.requestId, .receivedAt] + AuditRequestColumn.completion

    /// The whole migration.
    static var sql: String {
        tables + moveRows + "DROP TABLE requests;\n" + view + triggers + marks
    }

    /// `name TYPE [NOT NULL …]` without the old table's `UNIQUE` (a named index says it).
    static func declaration(_ column: AuditRequestColumn) -> String {
        column.declaration(sqlite: true).replacingOccurrences(of: " UNIQUE", with: "")
    }

    private static func list(_ columns: [AuditRequestColumn], prefix: String = "") -> String {
        columns.map { prefix + $0.name }.joined(separator: ", ")
    }

    static let tables = """
        CREATE TABLE request_log (
            id INTEGER PRIMARY KEY,
            \(AuditRequestColumn.intent.map(declaration).joined(separator: ",\n    "))
        );
        CREATE UNIQUE INDEX request_log_id ON request_log (request_id);
        CREATE INDEX request_log_time ON request_log (received_at);
        CREATE TABLE request_outcomes (
            id INTEGER PRIMARY KEY,
            \(outcomeColumns.map(declaration).joined(separator: ",\n    "))
        );
        CREATE UNIQUE INDEX request_outcomes_id ON request_outcomes (request_id);

        """

    static let moveRows = """
        INSERT INTO request_log (id, \(list(AuditRequestColumn.intent))) SELECT id, \(list(AuditRequestColumn.intent)) FROM requests ORDER BY id;
        INSERT INTO request_outcomes (\(list(outcomeColumns))) SELECT \(list(outcomeColumns)) FROM requests WHERE outcome <> '\(pending)' ORDER BY id;

        """

    /// `requests` as it was: the intent's columns and the outcome's, `pending` without one.
    static let view: String = {
        let columns = AuditRequestColumn.allCases.map { column -> String in
            switch column {
            case .outcome: "coalesce(o.outcome, '\(pending)') AS outcome"
            case _ where AuditRequestColumn.completion.contains(column): "o.\(column.name) AS \(column.name)"
            default: "l.\(column.name) AS \(column.name)"
            }
        }
        return "CREATE VIEW requests AS SELECT l.id AS id, " + columns.joined(separator: ", ")
            + " FROM request_log l LEFT JOIN request_outcomes o ON o.request_id = l.request_id;\n"
    }()

    /// `NEW.column` for the triggers; `finding_count` and `outcome` get the old table's defaults.
    static func new(_ column: AuditRequestColumn) -> String {
        switch column {
        case .findingCount: "coalesce(NEW.finding_count, 0)"
        case .outcome: "coalesce(NEW.outcome, '\(pending)')"
        default: "NEW.\(column.name)"
        }
    }

    /// The outcome row of `NEW` when it is not pending and none exists yet.
    private static let insertOutcome = """
        INSERT INTO request_outcomes (\(list(outcomeColumns))) SELECT \(outcomeColumns.map(new).joined(separator: ", "))
                WHERE \(new(.outcome)) <> '\(pending)' AND NOT EXISTS (SELECT 1 FROM request_outcomes WHERE request_id = NEW.request_id);
        """

    static let triggers = """
        CREATE TRIGGER requests_insert INSTEAD OF INSERT ON requests BEGIN
            INSERT INTO request_log (id, \(list(AuditRequestColumn.intent))) VALUES (NEW.id, \(AuditRequestColumn.intent.map(new).joined(separator: ", ")));
            \(insertOutcome)
        END;
        CREATE TRIGGER requests_update INSTEAD OF UPDATE ON requests BEGIN
            UPDATE request_log SET \(AuditRequestColumn.intent.map { "\($0.name) = \(new($0))" }.joined(separator: ", ")) WHERE id = OLD.id;
            DELETE FROM request_outcomes WHERE request_id = OLD.request_id AND \(new(.outcome)) = '\(pending)';
            UPDATE request_outcomes SET \(outcomeColumns.map { "\($0.name) = \(new($0))" }.joined(separator: ", ")) WHERE request_id = OLD.request_id;
            \(insertOutcome)
        END;
        CREATE TRIGGER requests_delete INSTEAD OF DELETE ON requests BEGIN
            DELETE FROM request_outcomes WHERE request_id = OLD.request_id;
            DELETE FROM request_log WHERE id = OLD.id;
        END;

        """

    /// One mark for the moved rows: through the id before the first moved intent without
    /// outcome (or the last moved row when there is none).
    static let marks = """
        CREATE TABLE audit_marks (
            instance_name TEXT PRIMARY KEY,
            settled_through INTEGER NOT NULL,
            marked_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO audit_marks (instance_name, settled_through, marked_at)
        SELECT 'migration \(number)', coalesce(
                (SELECT min(l.id) - 1 FROM request_log l WHERE NOT EXISTS (SELECT 1 FROM request_outcomes o WHERE o.request_id = l.request_id)),
                (SELECT max(id) FROM request_log), 0),
            CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER);

        """
}
