/// SQLite audit migration 22, "outcome rows keyed by their intent" (issue 30, bytes and CPU
/// written per request): a request's outcome row in `request_outcomes` takes its intent's
/// `request_log` id as its own rowid (`INTEGER PRIMARY KEY`), so the table needs no unique
/// index on `request_id` (`request_outcomes_id`, one b-tree insert per completion, ~0.4 KiB
/// of WAL a request). Everything that found an outcome by its request id goes by the intent's
/// id instead: the `requests` view's join (`o.id = l.id`), recovery's "intent without
/// completion" (``AuditRecovery/settleOpenIntentsSQL``), a completion (which finds its intent
/// through `request_log_id`, ``AuditStatements/finishIntentSQL``), a scheduled request's
/// completion and pruning (each through `request_log_id`, then the rowid). A second completion
/// of one request still meets the first on the key, and replaces it, as before.
///
/// The migration rebuilds `request_outcomes` (SQLite cannot change a table's key): every
/// outcome row moves under its intent's id (an outcome row without its intent, which no reader
/// could see, is left behind), the old table and its index are dropped, and the view, its
/// `INSTEAD OF` triggers and the partial index of the scheduled outcomes are made again, the
/// view reading exactly the columns it read (``AuditAnswerOnceSchema/view`` but for the join).
/// `request_id` stays a column of the outcome row (what `audit copy` and the scheduled index read).
///
/// A reader never migrates a file: on a file still shaped as before (``AuditSQL/outcomesKeyedByIntent()``
/// false) the view joins on `request_id`, and the few writes a tool makes there (pruning, a
/// scheduled request's completion) use the old statements.
enum AuditOutcomeKeySchema {
    /// The migration's number and name in `pushbridge_migrations`.
    static let sqliteNumber = 22
    static let name = "outcome rows keyed by their intent"

    /// The index the migration drops: its existence tells an unmigrated file.
    static let droppedIndex = "request_outcomes_id"

    /// The whole migration.
    static var sql: String {
        "DROP VIEW requests;\n" + table + moveRows + "DROP TABLE request_outcomes;\n"
            + "ALTER TABLE request_outcomes_keyed RENAME TO request_outcomes;\n"
            + AuditScheduledIndexSchema.sql + view + triggers
    }

    private static let columns = AuditLogSchema.outcomeColumns.map(\.name).joined(separator: ", ")

    /// The new table, under a passing name until the old one is dropped.
    static let table = """
        CREATE TABLE request_outcomes_keyed (
            id INTEGER PRIMARY KEY,
            \(AuditLogSchema.outcomeColumns.map(AuditLogSchema.declaration).joined(separator: ",\n    "))
        );

        """

    static let moveRows = """
        INSERT INTO request_outcomes_keyed (id, \(columns))
            SELECT l.id, \(AuditLogSchema.outcomeColumns.map { "o.\($0.name)" }.joined(separator: ", "))
            FROM request_outcomes o JOIN request_log l ON l.request_id = o.request_id ORDER BY l.id;

        """

    /// `requests` as ``AuditAnswerOnceSchema/view`` makes it, joined on the intent's id.
    static let view = AuditAnswerOnceSchema.view.replacingOccurrences(of: "ON o.request_id = l.request_id", with: "ON o.id = l.id")

    /// `NEW.column` for the triggers (``AuditLogSchema``'s defaults).
    private static func new(_ column: AuditRequestColumn) -> String { AuditLogSchema.new(column) }

    /// The outcome row of `NEW` under the id of its intent (`l`, found by `intent`), when it is
    /// not pending and none exists yet.
    private static func insertOutcome(intent: String) -> String {
        """
        INSERT INTO request_outcomes (id, \(columns)) SELECT l.id, \(AuditLogSchema.outcomeColumns.map(new).joined(separator: ", "))
                FROM request_log l WHERE \(intent) AND \(new(.outcome)) <> '\(AuditLogSchema.pending)'
                AND NOT EXISTS (SELECT 1 FROM request_outcomes o WHERE o.id = l.id);
        """
    }

    /// ``AuditLogSchema/triggers`` with every outcome row found by its intent's id.
    static let triggers = triggers(notingIntent: { _ in "" })

    /// ``triggers``, the insert and the update each ending with `notingIntent(intent)`'s
    /// statement (`intent`: the condition that finds the written `request_log` row `l`; ""
    /// adds nothing), so a later migration can note where every intent went
    /// (``AuditLogMinutesSchema``).
    static func triggers(notingIntent: (String) -> String) -> String {
        func noted(_ intent: String) -> String {
            let statement = notingIntent(intent)
            return statement.isEmpty ? "" : "\n    " + statement
        }
        return """
        CREATE TRIGGER requests_insert INSTEAD OF INSERT ON requests BEGIN
            INSERT INTO request_log (id, \(AuditRequestColumn.intent.map(\.name).joined(separator: ", "))) VALUES (NEW.id, \(AuditRequestColumn.intent.map(new).joined(separator: ", ")));
            \(insertOutcome(intent: "l.request_id = NEW.request_id"))\(noted("l.request_id = NEW.request_id"))
        END;
        CREATE TRIGGER requests_update INSTEAD OF UPDATE ON requests BEGIN
            UPDATE request_log SET \(AuditRequestColumn.intent.map { "\($0.name) = \(new($0))" }.joined(separator: ", ")) WHERE id = OLD.id;
            DELETE FROM request_outcomes WHERE id = OLD.id AND \(new(.outcome)) = '\(AuditLogSchema.pending)';
            UPDATE request_outcomes SET \(AuditLogSchema.outcomeColumns.map { "\($0.name) = \(new($0))" }.joined(separator: ", ")) WHERE id = OLD.id;
            \(insertOutcome(intent: "l.id = OLD.id"))\(noted("l.id = OLD.id"))
        END;
        CREATE TRIGGER requests_delete INSTEAD OF DELETE ON requests BEGIN
            DELETE FROM request_outcomes WHERE id = OLD.id;
            DELETE FROM request_log WHERE id = OLD.id;
        END;

        """
    }

    /// The outcome row of the request whose id is bound to `?` (through `request_log_id`).
    static let outcomeOfRequest = "id = (SELECT id FROM request_log WHERE request_id = ?)"
}
