/// The shadow rollup (issue 30, "readiness over 1,000,000 rows ≤ 2 s"): `rollup_shadow_hourly`,
/// the shadow comparisons counted per hour of their request (`received_at / 3600000`) ×
/// instance × source app × app name × dialect × route × the two sides' status classes × the
/// verdict flags readiness reads (sent, disagreed, expected gap, OpenPush as the shadow, its
/// acceptance, its population gap, its 429), with the newest comparison's request id per row
/// (readiness shows examples). Readiness reads a window's whole hours from it and the partial
/// hours at its edges from the comparisons joined to the log (``AuditReader/readinessShadow``).
///
/// A comparison is written apart from its request (``AuditStore/record(_:receivedAt:appName:)``,
/// insert-or-replace), so it carries its request's `received_at` and `app_name` in two columns
/// this migration adds; a trigger on `shadow_comparisons` (both engines) keeps the rollup: an
/// insert adds the row, a replacement takes the old row out first, a delete (pruning, a
/// dropped day, `audit copy` recopying an instance) takes it out. A row taken out that was its
/// rollup row's newest has that row's newest read again from the comparisons of its hour
/// (`shadow_by_received`). Only comparisons with a `received_at` are counted (every one the
/// proxy writes; the migration fills them from the log, where a request without its row has none).
///
/// The fold runs in the database, with the very SQL readiness's edges evaluate over the same
/// stored (truncated) bodies, so the two can never count a comparison differently. The plain
/// request path writes nothing more: only a comparison's own insert fires it.
enum AuditRollupShadowSchema {
    /// SQLite's migration number.
    static let sqliteNumber = 19
    /// PostgreSQL's migration number.
    static let postgresNumber = 15
    /// The migration's name.
    static let name = "shadow rollup"

    /// The table.
    static let table = "rollup_shadow_hourly"
    /// Milliseconds per hour: a row's hour is its request's `received_at / 3600000`.
    static let hourMs: Int64 = 3_600_000

    /// A side's status class as readiness shows it: `<provider> 2xx` …, or `<provider> error`
    /// without a status or with a transport error (over a comparison aliased `s`).
    static func statusClass(_ side: String) -> String {
        "s.\(side)_provider || ' ' || CASE WHEN s.\(side)_status IS NULL OR s.\(side)_error IS NOT NULL THEN 'error' ELSE (s.\(side)_status / 100) || 'xx' END"
    }

    /// A 0/1 column from a condition.
    private static func flag(_ condition: String) -> String { "CASE WHEN \(condition) THEN 1 ELSE 0 END" }

    /// The key's columns, each with its expression over a comparison aliased `s`.
    static let key: [(column: String, expression: String)] = [
        ("hour", "s.received_at / \(hourMs)"),
        ("instance_name", "coalesce(s.instance_name, '')"),
        ("source_app", "coalesce(s.source_app, '')"),
        ("app_name", "coalesce(s.app_name, '')"),
        ("dialect", "coalesce(s.dialect, '')"),
        ("route", "coalesce(s.route, '')"),
        ("primary_class", statusClass("primary")),
        ("shadow_class", statusClass("shadow")),
        ("sent", flag("s.verdict <> '\(ShadowComparison.Verdict.shadowSkipped.rawValue)'")),
        ("disagreed", flag("\(PopulationGap.accepted("primary")) <> \(PopulationGap.accepted("shadow"))")),
        ("expected", flag(PopulationGap.expectedDisagreementSQL())),
        ("openpush_shadow", flag("s.shadow_provider = 'openpush'")),
        ("shadow_accepted", PopulationGap.accepted("shadow")),
        ("shadow_gap", flag(PopulationGap.sql(side: "shadow"))),
        ("shadow_429", flag("coalesce(s.shadow_status, 0) = 429")),
    ]
    /// The key's column names.
    static let keyColumns = key.map(\.column)

    /// The columns of `shadow_comparisons` the key reads (a trigger's `OLD` or `NEW` row is
    /// made a one-row relation `s` of them).
    static let comparisonColumns = ["request_id", "received_at", "instance_name", "source_app", "app_name", "dialect", "route", "verdict",
                                    "primary_provider", "primary_status", "primary_error", "primary_body",
                                    "shadow_provider", "shadow_status", "shadow_error", "shadow_body"]

    /// The key's text columns; the others (the hour and the 0/1 flags) are integers.
    private static let textColumns: Set<String> = ["instance_name", "source_app", "app_name", "dialect", "route", "primary_class", "shadow_class"]

    /// The table: the key, the comparisons counted and the newest one's request id.
    static func createTable(sqlite: Bool) -> String {
        let integer = sqlite ? "INTEGER" : "BIGINT"
        let columns = key.map { column, _ in "    \(column) \(textColumns.contains(column) ? "TEXT" : integer) NOT NULL" }
        return """
            CREATE TABLE \(table) (
            \(columns.joined(separator: ",\n")),
                comparisons \(integer) NOT NULL,
                newest_request_id TEXT NOT NULL,
                PRIMARY KEY (\(keyColumns.joined(separator: ", ")))
            )\(sqlite ? " WITHOUT ROWID" : "");

            """
    }

    /// Adds each row of `source` (a relation of comparisons aliased `s`) with `sign`: one
    /// comparison each (its request id the newest when adding; kept as it is when taking out).
    static func foldSQL(from source: String, sign: Int) -> String {
        """
        INSERT INTO \(table) (\(keyColumns.joined(separator: ", ")), comparisons, newest_request_id)
        SELECT \(key.map(\.expression).joined(separator: ", ")), \(sign), \(sign > 0 ? "s.request_id" : "''")
        FROM \(source) WHERE s.received_at IS NOT NULL
        ON CONFLICT (\(keyColumns.joined(separator: ", "))) DO UPDATE SET comparisons = \(table).comparisons + excluded.comparisons,
            newest_request_id = CASE WHEN excluded.newest_request_id > \(table).newest_request_id THEN excluded.newest_request_id ELSE \(table).newest_request_id END
        """
    }

    /// `row` (`OLD` or `NEW`) as the one-row relation `s` ``foldSQL(from:sign:)`` reads.
    static func rowSource(_ row: String) -> String {
        "(SELECT " + comparisonColumns.map { "\(row).\($0) AS \($0)" }.joined(separator: ", ") + ") AS s"
    }

    /// After `OLD` was taken out: its hour's rows left at zero go, and a row whose newest it
    /// was reads its newest again from the comparisons of its hour with the same key.
    static func afterTakingOutSQL() -> [String] {
        let hour = "OLD.received_at / \(hourMs)"
        let sameKey = key.dropFirst().map { "\($0.expression) = \(table).\($0.column)" }.joined(separator: " AND ")
        return [
            "DELETE FROM \(table) WHERE hour = \(hour) AND comparisons = 0",
            """
            UPDATE \(table) SET newest_request_id = coalesce((SELECT max(s.request_id) FROM shadow_comparisons s
                WHERE s.received_at >= \(table).hour * \(hourMs) AND s.received_at < (\(table).hour + 1) * \(hourMs) AND \(sameKey)), '')
            WHERE hour = \(hour) AND newest_request_id = OLD.request_id
            """,
        ]
    }

    /// The whole table counted again from the comparisons (the migration).
    static let recountSQL = """
        DELETE FROM \(table);
        INSERT INTO \(table) (\(keyColumns.joined(separator: ", ")), comparisons, newest_request_id)
        SELECT \(key.map(\.expression).joined(separator: ", ")), count(*), max(s.request_id)
        FROM shadow_comparisons s WHERE s.received_at IS NOT NULL GROUP BY \(key.map(\.expression).joined(separator: ", "));

        """

    /// The two columns a comparison carries from its request, and the index an hour's comparisons are read by.
    static func addColumns(sqlite: Bool) -> String {
        """
        ALTER TABLE shadow_comparisons ADD COLUMN received_at \(sqlite ? "INTEGER" : "BIGINT");
        ALTER TABLE shadow_comparisons ADD COLUMN app_name TEXT;
        CREATE INDEX shadow_by_received ON shadow_comparisons (received_at);

        """
    }

    /// SQLite's migration: the columns filled from the log, the table counted, the triggers.
    static let sqliteSQL = addColumns(sqlite: true) + """
        UPDATE shadow_comparisons SET received_at = l.received_at, app_name = l.app_name FROM request_log l WHERE l.request_id = shadow_comparisons.request_id;

        """ + createTable(sqlite: true) + recountSQL + """
        CREATE TRIGGER rollup_shadow_insert AFTER INSERT ON shadow_comparisons BEGIN
            \(foldSQL(from: rowSource("NEW"), sign: 1));
        END;
        CREATE TRIGGER rollup_shadow_update AFTER UPDATE ON shadow_comparisons BEGIN
            \(foldSQL(from: rowSource("OLD"), sign: -1));
            \(afterTakingOutSQL().joined(separator: ";\n"));
            \(foldSQL(from: rowSource("NEW"), sign: 1));
        END;
        CREATE TRIGGER rollup_shadow_delete AFTER DELETE ON shadow_comparisons BEGIN
            \(foldSQL(from: rowSource("OLD"), sign: -1));
            \(afterTakingOutSQL().joined(separator: ";\n"));
        END;

        """

    /// PostgreSQL's migration: the same, the triggers one PL/pgSQL function.
    static let postgresSQL = addColumns(sqlite: false) + """
        UPDATE shadow_comparisons s SET received_at = l.received_at, app_name = l.app_name FROM request_log l WHERE l.request_id = s.request_id;

        """ + createTable(sqlite: false) + recountSQL + """
        CREATE FUNCTION rollup_shadow_fold() RETURNS trigger LANGUAGE plpgsql AS $fold$
        BEGIN
            IF TG_OP IN ('UPDATE', 'DELETE') THEN
                \(foldSQL(from: rowSource("OLD"), sign: -1));
                \(afterTakingOutSQL().joined(separator: ";\n"));
            END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') THEN
                \(foldSQL(from: rowSource("NEW"), sign: 1));
            END IF;
            RETURN NULL;
        END
        $fold$;
        CREATE TRIGGER rollup_shadow AFTER INSERT OR UPDATE OR DELETE ON shadow_comparisons FOR EACH ROW EXECUTE FUNCTION rollup_shadow_fold();

        """

    /// Whether `database` has the shadow rollup (a file a reader opens may not be migrated to it yet).
    static func exist(in database: any AuditSQL) throws -> Bool {
        try database.hasTable(table)
    }
}
