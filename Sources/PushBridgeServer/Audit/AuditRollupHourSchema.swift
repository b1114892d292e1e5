/// The hourly rollups (issue 30, "report / readiness over 1,000,000 rows ≤ 2 s"):
/// `rollup_requests_hourly` and `rollup_findings_hourly`, the per-minute rollups
/// (``AuditRollupSchema``, ``AuditRollupReadinessSchema``) with `hour` (`received_at /
/// 3600000`) in place of `minute` and every counter. On thin traffic a minute's counter row
/// holds about one request, so a report over a month grouped ~800,000 of them; an hour's folds
/// ~20× as many, and readers read a window's whole hours from these tables (``RollupWindow``).
///
/// The invariant every writer keeps: an hourly row is exactly its hour's minute rows of the
/// same key added up (sums, earliest `first_at`, latest `last_at`, the newest example with its
/// message). The audit writer adds each batch's counters to both levels in one transaction
/// (``AuditRollupFold/statements(hours:)``), recovery moves `pending` to `unknown` in both
/// (``AuditRollupRows/moveToUnknownSQL(intents:hourly:)``), and what takes rows out (pruning,
/// a recount) rebuilds the hours it touched from their minute rows (``rebuildSQL(hours:instances:)``).
enum AuditRollupHourSchema {
    /// SQLite's migration number.
    static let sqliteNumber = 17
    /// PostgreSQL's migration number.
    static let postgresNumber = 13
    /// The migration's name.
    static let name = "hourly rollups"

    /// The tables.
    static let requestsTable = "rollup_requests_hourly", findingsTable = "rollup_findings_hourly"
    /// Minutes per hour: an hourly row's minutes are `[hour * 60, hour * 60 + 60)`.
    static let minutesPerHour: Int64 = 60

    /// `rollup_requests_hourly`'s key: ``AuditRollupSchema/requestKey`` with `hour` first.
    static let requestKey = ["hour"] + AuditRollupSchema.requestKey.dropFirst()
    /// `rollup_findings_hourly`'s key: ``AuditRollupSchema/findingKey`` with `hour` first.
    static let findingKey = ["hour"] + AuditRollupSchema.findingKey.dropFirst()

    /// Both tables, every counter defaulting to its zero (recovery's upsert names only some).
    static func createTables(sqlite: Bool) -> String {
        AuditRollupSchema.table(requestsTable, requestKey, AuditRollupSchema.requestCounters, sqlite: sqlite, defaults: true)
            + AuditRollupSchema.table(findingsTable, findingKey, AuditRollupSchema.findingCounters, sqlite: sqlite, defaults: true)
    }

    /// What follows `ON CONFLICT` in an upsert of `rollup_requests_hourly`.
    static let requestsConflict = AuditRollupSchema.requestsConflict(requestsTable, requestKey)
    /// What follows `ON CONFLICT` in an upsert of `rollup_findings_hourly`.
    static let findingsConflict = AuditRollupSchema.findingsConflict(findingsTable, findingKey)

    /// Adds `rows` counter rows' figures to `rollup_requests_hourly`.
    static func upsertRequestsSQL(rows: Int) -> String {
        AuditRollupSchema.upsertSQL(requestsTable, requestKey, AuditRollupSchema.requestCounters, conflict: requestsConflict, rows: rows)
    }

    /// Adds `rows` counter rows' figures to `rollup_findings_hourly`.
    static func upsertFindingsSQL(rows: Int) -> String {
        AuditRollupSchema.upsertSQL(findingsTable, findingKey, AuditRollupSchema.findingCounters, conflict: findingsConflict, rows: rows)
    }

    /// The statements that make the hourly rows of `hours` (`[from, to)`, either open; nil:
    /// every hour) and of `instances` (nil: all) again from their minute rows: delete them,
    /// then add the minute rows up per hour and key (the newest example's message by a window
    /// function, which both engines have). Run after rows were taken out of the minute rows.
    /// Each statement with its arguments (the instances' names).
    static func rebuildSQL(hours: (from: Int64?, to: Int64?)? = nil, instances: [String]? = nil) -> [(sql: String, values: [SQLiteValue])] {
        var hourConditions: [String] = [], minuteConditions: [String] = [], values: [SQLiteValue] = []
        if let from = hours?.from { hourConditions.append("hour >= \(from)"); minuteConditions.append("minute >= \(from * minutesPerHour)") }
        if let to = hours?.to { hourConditions.append("hour < \(to)"); minuteConditions.append("minute < \(to * minutesPerHour)") }
        if let instances {
            let marks = Array(repeating: "?", count: max(1, instances.count)).joined(separator: ", ")
            hourConditions.append("instance_name IN (\(marks))")
            minuteConditions.append("instance_name IN (\(marks))")
            values = instances.isEmpty ? [.null] : instances.map { .text($0) }
        }
        func whereClause(_ conditions: [String]) -> String { conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ") }
        let requestColumns = AuditRollupSchema.requestKey.dropFirst().joined(separator: ", ")
        let requestFigures = AuditRollupSchema.requestCounters.map { column in
            switch column {
            case "first_at": "min(first_at)"
            case "last_at": "max(last_at)"
            default: "sum(\(column))"
            }
        }.joined(separator: ", ")
        let findingColumns = AuditRollupSchema.findingKey.dropFirst().joined(separator: ", ")
        let findingFigures = AuditRollupSchema.findingCounters.map { column in
            switch column {
            case "first_at": "min(first_at) OVER hour_key"
            case "last_at", "indexed", "judged_example_request_id": "max(\(column)) OVER hour_key"
            case "example_request_id", "example_message": column
            default: "sum(\(column)) OVER hour_key"
            }
        }
        let findingNames = AuditRollupSchema.findingCounters
        return [
            ("DELETE FROM \(requestsTable)\(whereClause(hourConditions))", values),
            ("DELETE FROM \(findingsTable)\(whereClause(hourConditions))", values),
            ("""
            INSERT INTO \(requestsTable) (\((requestKey + AuditRollupSchema.requestCounters).joined(separator: ", ")))
            SELECT minute / \(minutesPerHour), \(requestColumns), \(requestFigures)
            FROM rollup_requests\(whereClause(minuteConditions)) GROUP BY minute / \(minutesPerHour), \(requestColumns)
            """, values),
            ("""
            INSERT INTO \(findingsTable) (\((findingKey + findingNames).joined(separator: ", ")))
            SELECT hour, \(findingColumns), \(findingNames.joined(separator: ", ")) FROM (
                SELECT minute / \(minutesPerHour) AS hour, \(findingColumns),
                       \(zip(findingFigures, findingNames).map { "\($0) AS \($1)" }.joined(separator: ", ")),
                       row_number() OVER (PARTITION BY minute / \(minutesPerHour), \(findingColumns) ORDER BY example_request_id DESC) AS place
                FROM rollup_findings\(whereClause(minuteConditions))
                WINDOW hour_key AS (PARTITION BY minute / \(minutesPerHour), \(findingColumns))
            ) AS ranked WHERE place = 1
            """, values),
        ]
    }

    /// Rebuilds `hours` (nil: all) of `instances` (nil: all) on `database`, inside the caller's transaction.
    static func rebuild(_ database: any AuditSQL, hours: (from: Int64?, to: Int64?)? = nil, instances: [String]? = nil) throws {
        for (sql, values) in rebuildSQL(hours: hours, instances: instances) { try database.change(sql, values) }
    }

    /// SQLite's migration: the tables, filled from the minute rows (an existing audit's reports
    /// read the same figures at once).
    static func migrateSQLite(_ database: SQLiteDatabase) throws {
        try database.execute(createTables(sqlite: true))
        try rebuild(database)
    }

    /// PostgreSQL's migration: the tables, filled from the minute rows. A recount still marked
    /// (``AuditRollupRows/fillIfMarked(_:)``) rebuilds them again with the minutes.
    static let postgresSQL = createTables(sqlite: false) + rebuildSQL().map { $0.sql + ";\n" }.joined()

    /// Whether `database` has the hourly rollups (an audit `audit prune` or a reader opens may
    /// not be migrated to them yet: it is read from, and recounted by, the minutes).
    static func exist(in database: any AuditSQL) throws -> Bool {
        try database.hasTable(requestsTable)
    }
}
