/// The `requests` table's columns, declared once for both engines: each column's name, kind
/// and constraint, in the table's order. The SQLite and PostgreSQL migrations that create the
/// table are made from this list (``createTable(sqlite:)``, ``addColumns(sqliteMigration:)``),
/// the writer's `INSERT` and `UPDATE` name the columns from it, and readers pick values by
/// column (``AuditRequestRow``), never by position.
///
/// Existing databases are never rewritten: a column added later joins the end of this list
/// with the SQLite migration that adds it, and a new migration on each engine.
enum AuditRequestColumn: String, CaseIterable, Sendable {
    case requestId = "request_id", receivedAt = "received_at", finishedAt = "finished_at", path, dialect, route
    case sourceApp = "source_app", targetApp = "target_app", activityType = "activity_type", activityId = "activity_id"
    case event, keyFingerprint = "key_fingerprint", inboundBody = "inbound_body", translated, findingCount = "finding_count"
    case upstreamStatus = "upstream_status", upstreamBody = "upstream_body", upstreamLatencyMs = "upstream_latency_ms", attempts
    case responseStatus = "response_status", responseBody = "response_body", outcome, errorMessage = "error_message"
    case appName = "app_name", instanceName = "instance_name"

    /// The kind of value a column holds: SQLite's storage class, PostgreSQL's type.
    enum Kind {
        case integer, real, text

        func type(sqlite: Bool) -> String {
            switch self {
            case .integer: sqlite ? "INTEGER" : "BIGINT"
            case .real: sqlite ? "REAL" : "DOUBLE PRECISION"
            case .text: "TEXT"
            }
        }
    }

    /// The column's name in SQL.
    var name: String { rawValue }

    var kind: Kind {
        switch self {
        case .receivedAt, .finishedAt, .findingCount, .upstreamStatus, .responseStatus: .integer
        case .upstreamLatencyMs: .real
        default: .text
        }
    }

    /// What follows the type in the table's declaration.
    var constraint: String? {
        switch self {
        case .requestId: "NOT NULL UNIQUE"
        case .receivedAt, .outcome: "NOT NULL"
        case .findingCount: "NOT NULL DEFAULT 0"
        default: nil
        }
    }

    /// The SQLite migration that added the column (``AuditSchema``); PostgreSQL's first
    /// migration creates them all.
    var sqliteMigration: Int {
        switch self {
        case .appName: 5
        case .instanceName: 6
        default: 1
        }
    }

    /// The columns a request's completion fills (``AuditCompletionColumns``).
    static let completion: [AuditRequestColumn] = [
        .finishedAt, .upstreamStatus, .upstreamBody, .upstreamLatencyMs, .attempts, .responseStatus, .responseBody, .outcome, .errorMessage,
    ]

    /// The columns of a request's intent (`request_log`, the audit as a log): every column
    /// but the ``completion``'s, in the table's order.
    static let intent: [AuditRequestColumn] = allCases.filter { !completion.contains($0) }

    /// `name TYPE [constraint]`, as the table declares it.
    func declaration(sqlite: Bool) -> String {
        [name, kind.type(sqlite: sqlite), constraint].compactMap { $0 }.joined(separator: " ")
    }

    /// `CREATE TABLE requests (…);` with the columns the engine's first migration made.
    static func createTable(sqlite: Bool) -> String {
        let id = sqlite ? "id INTEGER PRIMARY KEY" : "id BIGSERIAL PRIMARY KEY"
        let columns = allCases.filter { !sqlite || $0.sqliteMigration == 1 }.map { $0.declaration(sqlite: sqlite) }
        return "CREATE TABLE requests (\n" + ([id] + columns).map { "    " + $0 }.joined(separator: ",\n") + "\n);\n"
    }

    /// The `ALTER TABLE requests ADD COLUMN …;` lines of SQLite migration `number`.
    static func addColumns(sqliteMigration number: Int) -> String {
        allCases.filter { $0.sqliteMigration == number }.map { "ALTER TABLE requests ADD COLUMN \($0.declaration(sqlite: true));\n" }.joined()
    }
}
