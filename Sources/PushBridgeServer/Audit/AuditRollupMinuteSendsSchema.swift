/// The busiest minute's own rollup (issue 30, "readiness over 1,000,000 rows ≤ 2 s"):
/// `rollup_minute_sends`, per minute, OpenPush app (`target_app`), app name, source app and
/// instance, the OpenPush sends and requests of the rows readiness's busiest minute
/// counts (``counts(outcome:dialect:route:)``: admitted, neither rejected nor unhandled, with a
/// dialect and route) and of no other. Readiness read the busiest minute from the wide
/// per-minute `rollup_requests` (18 rows a minute on the bench's traffic, ten key columns,
/// every condition evaluated on each); this table is its grouping and nothing else, so the read
/// sums narrow rows in its key's order with nothing else to evaluate.
///
/// The invariant every writer keeps: a row is exactly the `rollup_requests` rows of its minute
/// and key that the rule counts, added up. The audit writer folds it with the other rollups in
/// the batch's transaction (``AuditRollupFold/statements(hours:sends:)``); recovery's move
/// from `pending` to `unknown` changes nothing here (both are counted); what takes rows out of
/// the minutes (pruning, a recount) makes the minutes it touched again from `rollup_requests`
/// (``rebuildSQL(minutes:instances:)``), and a PostgreSQL day partition dropped whole deletes
/// the day's minutes.
enum AuditRollupMinuteSendsSchema {
    /// SQLite's migration number.
    static let sqliteNumber = 20
    /// PostgreSQL's migration number.
    static let postgresNumber = 16
    /// The migration's name.
    static let name = "the busiest minute's sends per minute"

    /// The table.
    static let table = "rollup_minute_sends"
    /// Its key: the busiest minute's grouping (the first five columns of
    /// ``AuditRollupSchema/requestKey``), in the order readiness adds it up: the minute, then the
    /// OpenPush app, so the sums per OpenPush app and minute are read in the key's order.
    static let key = ["minute", "target_app", "app_name", "source_app", "instance_name"]
    /// Its counters, named as in `rollup_requests`.
    static let counters = ["requests", "openpush_sends"]

    /// Whether a request with this outcome, dialect and route (`""`: none) counts toward an
    /// OpenPush app's busiest minute: PushBridge would send it (not refused before or at
    /// admission, not on a route it does not migrate). The fold's side of ``countedSQL``.
    static func counts(outcome: String, dialect: String, route: String) -> Bool {
        !dialect.isEmpty && !route.isEmpty && outcome != AuditOutcome.rejected.rawValue && outcome != AuditOutcome.unhandled.rawValue
    }

    /// ``counts(outcome:dialect:route:)`` as conditions on `rollup_requests` (a `rejected`
    /// row is all there is of a request refused before admission, so `admitted` is implied).
    static let countedSQL = "dialect <> '' AND route <> '' AND outcome NOT IN ('\(AuditOutcome.rejected.rawValue)', '\(AuditOutcome.unhandled.rawValue)')"

    /// The table (`WITHOUT ROWID` on SQLite: the key is the table).
    static func createTable(sqlite: Bool) -> String {
        AuditRollupSchema.table(table, key, counters, sqlite: sqlite)
    }

    /// Adds `rows` counter rows' figures (``key`` + ``counters`` order) to the table.
    static func upsertSQL(rows: Int) -> String {
        let conflict = "(\(key.joined(separator: ", "))) DO UPDATE SET " + counters.map { "\($0) = \(table).\($0) + excluded.\($0)" }.joined(separator: ", ")
        return AuditRollupSchema.upsertSQL(table, key, counters, conflict: conflict, rows: rows)
    }

    /// The statements that make the rows of `minutes` (`[from, to)`, either open; nil: every
    /// minute) and of `instances` (nil: all) again from `rollup_requests`: delete them, then
    /// add up the counted minute rows per key (a key left at nothing gets no row). Each with its
    /// arguments (the instances' names).
    static func rebuildSQL(minutes: (from: Int64?, to: Int64?)? = nil, instances: [String]? = nil) -> [(sql: String, values: [SQLiteValue])] {
        var conditions: [String] = [], values: [SQLiteValue] = []
        if let from = minutes?.from { conditions.append("minute >= \(from)") }
        if let to = minutes?.to { conditions.append("minute < \(to)") }
        if let instances {
            conditions.append("instance_name IN (\(Array(repeating: "?", count: max(1, instances.count)).joined(separator: ", ")))")
            values = instances.isEmpty ? [.null] : instances.map { .text($0) }
        }
        let scope = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let columns = key.joined(separator: ", ")
        return [
            ("DELETE FROM \(table)\(scope)", values),
            ("""
            INSERT INTO \(table) (\(columns), \(counters.joined(separator: ", ")))
            SELECT \(columns), sum(requests), sum(openpush_sends) FROM rollup_requests
            WHERE \(countedSQL)\(conditions.map { " AND " + $0 }.joined()) GROUP BY \(columns)
            HAVING sum(requests) <> 0 OR sum(openpush_sends) <> 0
            """, values),
        ]
    }

    /// Rebuilds `minutes` (nil: all) of `instances` (nil: all) on `database`, inside the caller's transaction.
    static func rebuild(_ database: any AuditSQL, minutes: (from: Int64?, to: Int64?)? = nil, instances: [String]? = nil) throws {
        for (sql, values) in rebuildSQL(minutes: minutes, instances: instances) { try database.change(sql, values) }
    }

    /// SQLite's migration: the table, counted from the minute rows an audit already has.
    static func migrateSQLite(_ database: SQLiteDatabase) throws {
        try database.execute(createTable(sqlite: true))
        try rebuild(database)
    }

    /// PostgreSQL's migration: the table, counted from the minute rows. A recount still marked
    /// (``AuditRollupRows/fillIfMarked(_:)``) counts it again with the minutes.
    static let postgresSQL = createTable(sqlite: false) + rebuildSQL().map { $0.sql + ";\n" }.joined()

    /// Whether `database` has the table (an audit a reader or `audit prune` opens may not be
    /// migrated to it yet: it is read from its rows).
    static func exist(in database: any AuditSQL) throws -> Bool {
        try database.hasTable(table)
    }
}
