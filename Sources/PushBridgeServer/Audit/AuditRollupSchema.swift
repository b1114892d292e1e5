/// The per-minute rollups (issue 30): `rollup_requests` and `rollup_findings`, keyed by the
/// minute (`received_at / 60000`), the instance that wrote the rows (so two PostgreSQL
/// instances never update one counter row) and the dimensions the report, readiness and the
/// admin page group by. Text dimensions hold `''` where the row holds NULL; `upstream_status`
/// holds 0 where none came back. Written by the audit writer with one upsert per touched
/// row per batch, inside the batch's transaction (``AuditRollupBatch``).
enum AuditRollupSchema {
    /// SQLite's migration number.
    static let sqliteNumber = 13
    /// PostgreSQL's migration number.
    static let postgresNumber = 10
    /// The migration's name.
    static let name = "per-minute rollups"

    static let requestKey = ["minute", "instance_name", "source_app", "app_name", "target_app", "dialect", "route", "outcome", "upstream_status", "admitted"]
    /// The counters migration 13 made; ``requestCounters`` adds those of later migrations.
    static let firstRequestCounters = ["requests", "openpush_sends", "latency_ms", "retried_requests", "retries", "rate_limited_attempts", "rate_limit_wait_ms",
                                       "first_at", "last_at"]
    static let requestCounters = firstRequestCounters + AuditRollupReadinessSchema.requestCounters
    static let findingKey = ["minute", "instance_name", "source_app", "app_name", "dialect", "route", "field", "kind"]
    /// The counters migration 13 made; ``findingCounters`` adds those of later migrations.
    static let firstFindingCounters = ["requests", "findings", "indexed", "first_at", "last_at", "example_request_id", "example_message"]
    static let findingCounters = firstFindingCounters + AuditRollupReadinessSchema.findingCounters

    /// Both tables, for SQLite (`WITHOUT ROWID`: the key is the table) or PostgreSQL.
    static func createTables(sqlite: Bool) -> String {
        table("rollup_requests", requestKey, firstRequestCounters, sqlite: sqlite) + table("rollup_findings", findingKey, firstFindingCounters, sqlite: sqlite)
    }

    /// `CREATE TABLE name` with `key` (its primary key) and `counters`; `defaults`: each
    /// counter with its zero as its default (for inserts that name only some).
    static func table(_ name: String, _ key: [String], _ counters: [String], sqlite: Bool, defaults: Bool = false) -> String {
        let integer = sqlite ? "INTEGER" : "BIGINT", real = sqlite ? "REAL" : "DOUBLE PRECISION"
        let suffix = sqlite ? " WITHOUT ROWID" : ""
        func declare(_ column: String) -> String {
            let counter = defaults && counters.contains(column)
            switch column {
            case "latency_ms", "rate_limit_wait_ms": return "\(column) \(real) NOT NULL" + (counter ? " DEFAULT 0" : "")
            case _ where textColumns.contains(column): return "\(column) TEXT NOT NULL" + (counter ? " DEFAULT ''" : "")
            default: return "\(column) \(integer) NOT NULL" + (counter ? " DEFAULT 0" : "")
            }
        }
        return "CREATE TABLE \(name) (\n    " + (key + counters).map(declare).joined(separator: ",\n    ")
            + ",\n    PRIMARY KEY (\(key.joined(separator: ", ")))\n)\(suffix);\n"
    }

    /// The rollups' text columns (every other is a number).
    static let textColumns: Set<String> = ["instance_name", "source_app", "app_name", "target_app", "dialect", "route", "outcome", "field", "kind",
                                           "example_request_id", "example_message", "judged_example_request_id"]

    /// Adds `rows` counter rows' figures to `rollup_requests` (the first and last time widened).
    static func upsertRequestsSQL(rows: Int) -> String { "INSERT INTO rollup_requests \(values(requestKey + requestCounters, rows: rows)) ON CONFLICT \(requestsConflict)" }

    /// Adds `rows` counter rows' figures to `table` (its `key` and `counters`) with `conflict` (``requestsConflict(_:_:)``, ``findingsConflict(_:_:)``).
    static func upsertSQL(_ table: String, _ key: [String], _ counters: [String], conflict: String, rows: Int) -> String {
        "INSERT INTO \(table) \(values(key + counters, rows: rows)) ON CONFLICT \(conflict)"
    }

    /// Adds `rows` counter rows' figures to `rollup_findings`.
    static func upsertFindingsSQL(rows: Int) -> String { "INSERT INTO rollup_findings \(values(findingKey + findingCounters, rows: rows)) ON CONFLICT \(findingsConflict)" }

    /// `(columns) VALUES (?, …), …`.
    static func values(_ columns: [String], rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return "(\(columns.joined(separator: ", "))) VALUES " + Array(repeating: row, count: max(1, rows)).joined(separator: ", ")
    }

    /// What follows `ON CONFLICT` in an upsert of `rollup_requests`: the counters added.
    static let requestsConflict = requestsConflict("rollup_requests", requestKey)

    /// What follows `ON CONFLICT` in an upsert of a requests rollup `table` keyed by `key`.
    static func requestsConflict(_ table: String, _ key: [String]) -> String {
        conflict(table, key, requestCounters) { column in
            switch column {
            case "first_at": earlier(table, column)
            case "last_at": later(table, column)
            default: "\(table).\(column) + excluded.\(column)"
            }
        }
    }

    /// What follows `ON CONFLICT` in an upsert of `rollup_findings`; the example is the newest request's.
    static let findingsConflict = findingsConflict("rollup_findings", findingKey)

    /// What follows `ON CONFLICT` in an upsert of a findings rollup `table` keyed by `key`.
    static func findingsConflict(_ table: String, _ key: [String]) -> String {
        conflict(table, key, findingCounters) { column in
            switch column {
            case "first_at": earlier(table, column)
            case "last_at", "judged_example_request_id": later(table, column)
            case "indexed": "CASE WHEN excluded.indexed > \(table).indexed THEN excluded.indexed ELSE \(table).indexed END"
            case "example_request_id", "example_message":
                "CASE WHEN excluded.example_request_id > \(table).example_request_id THEN excluded.\(column) ELSE \(table).\(column) END"
            default: "\(table).\(column) + excluded.\(column)"
            }
        }
    }

    private static func earlier(_ table: String, _ column: String) -> String {
        "CASE WHEN excluded.\(column) < \(table).\(column) THEN excluded.\(column) ELSE \(table).\(column) END"
    }

    private static func later(_ table: String, _ column: String) -> String {
        "CASE WHEN excluded.\(column) > \(table).\(column) THEN excluded.\(column) ELSE \(table).\(column) END"
    }

    private static func conflict(_ table: String, _ key: [String], _ counters: [String], _ update: (String) -> String) -> String {
        "(\(key.joined(separator: ", "))) DO UPDATE SET " + counters.map { "\($0) = \(update($0))" }.joined(separator: ", ")
    }

    /// SQLite's migration: the tables, filled from the rows the audit already has by the
    /// recount of the migration that follows (``AuditRollupReadinessSchema``), once every
    /// counter column is there.
    static func migrateSQLite(_ database: SQLiteDatabase) throws {
        try database.execute(createTables(sqlite: true))
    }

    /// PostgreSQL's migration: the tables and a mark that the rows already there are still to
    /// be counted (``AuditRollupRows/fillIfMarked(_:)``, run by the first writer to start).
    static let postgresSQL = createTables(sqlite: false) + """
        CREATE TABLE rollup_backfill (pending INTEGER PRIMARY KEY);
        INSERT INTO rollup_backfill (pending) VALUES (1);
        """
}
