/// The `scheduled_starts` table, declared once for both engines: its columns (which every
/// statement of ``ScheduledStartSQL`` and every reader use by name) and the migrations that
/// make it, on the scheduler's SQLite file and in the shared PostgreSQL database.
///
/// A migration that has shipped is history: its SQL is never edited (databases that applied
/// it are not migrated again). A new column is added to ``columns`` and by a new migration on
/// each engine, generated from its declaration (``addColumns(_:)``); a test checks that a
/// fresh database of either engine has exactly ``columns``.
enum ScheduledStartSchema {
    /// A column's type: `INTEGER` on SQLite, `BIGINT` or `INTEGER` on PostgreSQL.
    enum ColumnType: Sendable {
        case text, integer, bigint

        func spelling(postgres: Bool) -> String {
            switch self {
            case .text: "TEXT"
            case .integer: "INTEGER"
            case .bigint: postgres ? "BIGINT" : "INTEGER"
            }
        }
    }

    /// One column.
    struct Column: Sendable {
        var name: String
        var type: ColumnType
    }

    /// Every column, in the table's order.
    static let columns: [Column] = [
        .init(name: "id", type: .text), .init(name: "request_id", type: .text), .init(name: "ordinal", type: .integer),
        .init(name: "app_name", type: .text), .init(name: "target_app", type: .text), .init(name: "send_at", type: .bigint),
        .init(name: "send_date", type: .text), .init(name: "timezone", type: .text), .init(name: "state", type: .text),
        .init(name: "activity_type", type: .text), .init(name: "body", type: .text), .init(name: "notification_id", type: .text),
        .init(name: "upstream_status", type: .integer), .init(name: "error", type: .text), .init(name: "created_at", type: .bigint),
        .init(name: "created_by", type: .text), .init(name: "claimed_at", type: .bigint), .init(name: "claimed_by", type: .text),
        .init(name: "finished_at", type: .bigint),
    ]

    /// The columns a start is read back from (``ScheduledStart/init(row:)``), by name.
    static let selected = columns.map(\.name)

    /// `ALTER TABLE scheduled_starts ADD COLUMN …` for each of `names`, spelled from ``columns``.
    static func addColumns(_ names: [String], postgres: Bool) -> String {
        names.compactMap { name in columns.first { $0.name == name } }
            .map { "ALTER TABLE scheduled_starts ADD COLUMN \($0.name) \($0.type.spelling(postgres: postgres));" }.joined(separator: "\n")
    }

    /// The scheduler file's migrations. 2 gives the file the columns the shared table always
    /// had (who stored and who claimed a start), so one statement set serves both engines.
    static var sqliteMigrator: SQLiteMigrator {
        var migrator = SQLiteMigrator()
        migrator.register(1, "scheduled starts", sql: sqliteFirst)
        migrator.register(2, "who stored and who claimed each start", sql: addColumns(["created_by", "claimed_by"], postgres: false))
        return migrator
    }

    /// The scheduler file's first migration, as it shipped.
    static let sqliteFirst = """
        CREATE TABLE scheduled_starts (
            id TEXT PRIMARY KEY, request_id TEXT NOT NULL, ordinal INTEGER NOT NULL, app_name TEXT NOT NULL,
            target_app TEXT NOT NULL, send_at INTEGER NOT NULL, send_date TEXT, timezone TEXT, state TEXT NOT NULL,
            activity_type TEXT, body TEXT, notification_id TEXT, upstream_status INTEGER, error TEXT,
            created_at INTEGER NOT NULL, claimed_at INTEGER, finished_at INTEGER);
        CREATE INDEX scheduled_due ON scheduled_starts (state, send_at);
        CREATE INDEX scheduled_by_request ON scheduled_starts (request_id);
        """

    /// The shared table's migrations (numbers of ``PostgresSchema``'s shared range).
    static let postgresMigrations: [PostgresMigrator.Migration] = [
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
}
