/// The rollups' side of work on rows already written: filling the rollups from an existing
/// audit (the migration), looking up the rows a batch completes when the writer does not
/// hold their intent (``AuditRollupIntents``), taking pruned rows out, and moving rows left
/// pending to `unknown` at recovery. Reads with plain indexed queries, on either engine.
enum AuditRollupRows {
    /// The columns a row is counted from, in ``row(_:)``'s order.
    private static let columns = "request_id, received_at, instance_name, source_app, app_name, target_app, dialect, route, translated, outcome, "
        + "upstream_status, upstream_latency_ms, attempts, upstream_body, error_message"
    private static let findingColumns = "f.request_id, f.ordinal, f.dialect, f.route, f.source_app, f.received_at, f.field, f.kind, f.severity, f.message, "
        // The app name by a lookup of the finding's own request: a join to the `requests` view
        // would have SQLite materialize the whole log first (a scan per prune batch).
        + "f.instance_name, coalesce((SELECT r.app_name FROM requests r WHERE r.request_id = f.request_id), '')"
    /// Rows read per query while filling.
    static let chunk = 5_000

    private static func row(_ values: [SQLiteValue]) -> (String, AuditRollupRow) {
        let intent = AuditRollupRow.Intent(receivedAt: values[1].integerValue ?? 0, instance: values[2].textValue ?? "", sourceApp: values[3].textValue ?? "",
                                           appName: values[4].textValue ?? "", targetApp: values[5].textValue ?? "", dialect: values[6].textValue ?? "",
                                           route: values[7].textValue ?? "", translated: values[8].textValue != nil,
                                           sends: AuditRollupRow.sends(translated: values[8].textValue))
        return (values[0].textValue ?? "", AuditRollupRow(intent: intent, outcome: values[9].textValue ?? AuditOutcome.pending.rawValue,
                                                         upstreamStatus: values[10].integerValue, latencyMs: AuditRollupRow.real(values[11]),
                                                         attempts: values[12].textValue, upstreamBody: values[13].textValue,
                                                         errorMessage: values[14].textValue))
    }

    /// Folds findings rows (``findingColumns`` order, by request and ordinal) request by request.
    private static func foldFindings(_ rows: [[SQLiteValue]], into fold: inout AuditRollupFold, sign: Int64) {
        var start = 0
        while start < rows.count {
            let id = rows[start][0].textValue
            var end = start + 1
            while end < rows.count, rows[end][0].textValue == id { end += 1 }
            fold.addFindings(rows[start..<end].map { Array($0.prefix(11)) }, appName: rows[start][11].textValue ?? "", sign: sign)
            start = end
        }
    }

    /// Counts every row and finding `database` holds (of `instances`, when given) into the
    /// rollups, whose rows for them it first deletes: the migration that creates them, so an
    /// audit from before them reports the same, and `audit copy` for the instances it copied.
    /// The hourly rollups, once there, are made again from the minutes (``AuditRollupHourSchema``).
    /// With `sinceMinute`, only the counter rows of that minute on, from the rows received since.
    static func fill(_ database: any AuditSQL, instances: [String]? = nil, sinceMinute: Int64? = nil) throws {
        var fold = AuditRollupFold()
        var lastId: Int64 = .min
        let byInstance = instances.map { " AND instance_name IN (\(Array(repeating: "?", count: max(1, $0.count)).joined(separator: ", ")))" } ?? ""
        let scope = byInstance + (sinceMinute == nil ? "" : " AND received_at >= ?")
        let named: [SQLiteValue] = (instances.map { $0.isEmpty ? [.null] : $0.map { .text($0) } } ?? []) + (sinceMinute.map { [.integer($0 * 60_000)] } ?? [])
        let minutes = byInstance + (sinceMinute == nil ? "" : " AND minute >= ?")
        let minuteValues = Array(named.dropLast(sinceMinute == nil ? 0 : 1)) + (sinceMinute.map { [.integer($0)] } ?? [])
        for table in ["rollup_requests", "rollup_findings"] { try database.change("DELETE FROM \(table) WHERE 1 = 1\(minutes)", minuteValues) }
        if let sinceMinute, try AuditLogMinutesSchema.exist(in: database) {
            // The log has no index on time: its rows from that minute on start at the minutes' lowest id.
            lastId = try database.select("SELECT coalesce(min(first_id) - 1, \(Int64.max)) FROM \(AuditLogMinutesSchema.table) WHERE minute >= ?",
                                         [.integer(sinceMinute)]).first?.first?.integerValue ?? lastId
        }
        while true {
            let rows = try database.select("SELECT id, \(columns) FROM requests WHERE id > ?\(scope) ORDER BY id LIMIT \(chunk)", [.integer(lastId)] + named)
            for values in rows { fold.add(row(Array(values.dropFirst())).1) }
            guard rows.count == chunk, let last = rows.last?.first?.integerValue else { break }
            lastId = last
        }
        var lastRequest = ""
        while true {
            let rows = try database.select("""
                SELECT \(findingColumns) FROM findings f
                WHERE f.request_id > ?\(scope.replacingOccurrences(of: "instance_name", with: "f.instance_name").replacingOccurrences(of: "received_at", with: "f.received_at"))
                ORDER BY f.request_id, f.ordinal LIMIT \(chunk)
                """, [.text(lastRequest)] + named)
            // A full chunk may end inside a request: that request is read again with the next.
            let complete = rows.count == chunk ? Array(rows.prefix { $0[0].textValue != rows.last?[0].textValue }) : rows
            guard !complete.isEmpty || rows.count < chunk else { throw AuditError.wrap(SQLiteError(code: 1, message: "a request has more than \(chunk) findings")) }
            foldFindings(complete, into: &fold, sign: 1)
            guard rows.count == chunk, let last = complete.last?[0].textValue else { break }
            lastRequest = last
        }
        for statement in fold.statements(hours: false, sends: false) { try statement.run(on: database) }
        if try AuditRollupHourSchema.exist(in: database) {
            try AuditRollupHourSchema.rebuild(database, hours: sinceMinute.map { ($0 / AuditRollupHourSchema.minutesPerHour, nil) }, instances: instances)
        }
        if try AuditRollupMinuteSendsSchema.exist(in: database) {
            try AuditRollupMinuteSendsSchema.rebuild(database, minutes: sinceMinute.map { ($0, nil) }, instances: instances)
        }
    }

    /// Whether `database` has the rollups with every counter this build folds, and their
    /// hourly level (a file `audit prune` opens may not be migrated yet: its rollups are
    /// recounted when it is). The busiest minute's table (``AuditRollupMinuteSendsSchema``),
    /// made from the minutes by its migration, is kept and read when there.
    static func exist(in database: any AuditSQL) throws -> Bool {
        try AuditRollupReadinessSchema.exist(in: database) && AuditRollupHourSchema.exist(in: database)
    }

    /// PostgreSQL: fills the rollups once, by the first writer that finds the migration's
    /// mark (the mark's row lock makes a second instance starting at once wait, then skip);
    /// a recount, so rows an `audit copy` counted before are not counted twice.
    static func fillIfMarked(_ database: any AuditSQL) throws {
        try database.inTransaction {
            guard try database.change("DELETE FROM rollup_backfill WHERE pending = 1", []) == 1 else { return }
            try fill(database)
        }
    }

    /// The rows `requestIds` as they stand, by id (a completion's intent the writer no longer holds).
    static func lookUp(_ requestIds: [String], in database: any AuditSQL) throws -> [String: AuditRollupRow] {
        guard !requestIds.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: requestIds.count).joined(separator: ", ")
        let rows = try database.select("SELECT \(columns) FROM requests WHERE request_id IN (\(marks))", requestIds.map { .text($0) })
        return Dictionary(rows.map(row), uniquingKeysWith: { first, _ in first })
    }

    /// Takes out of the rollups the rows `condition` (on `requests`, bound to `values`)
    /// selects and their findings, before they are deleted; counter rows left at zero go, and
    /// the hours they were in are made again from their minutes (an hour's earliest and latest
    /// request and its examples are its remaining minutes'), and so are the busiest minute's
    /// rows of the minutes from the first to the last it touched.
    static func subtract(where condition: String, _ values: [SQLiteValue], in database: any AuditSQL) throws {
        guard try exist(in: database) else { return }
        var fold = AuditRollupFold()
        let rows = try database.select("SELECT \(columns) FROM requests WHERE \(condition)", values)
        guard !rows.isEmpty else { return }
        for values in rows { fold.add(row(values).1, sign: -1) }
        let ids = rows.compactMap { $0[0].textValue }
        try foldFindings(of: ids, into: &fold, in: database)
        for statement in fold.statements(hours: false, sends: false) { try statement.run(on: database) }
        let minutes = Set(fold.requests.keys.map(\.minute)).sorted()
        for minute in minutes {
            try database.change("DELETE FROM rollup_requests WHERE minute = ? AND requests = 0", [.integer(minute)])
            try database.change("DELETE FROM rollup_findings WHERE minute = ? AND findings = 0", [.integer(minute)])
        }
        for hour in Set(minutes.map { $0 / AuditRollupHourSchema.minutesPerHour }).sorted() {
            try AuditRollupHourSchema.rebuild(database, hours: (hour, hour + 1))
        }
        if let first = minutes.first, let last = minutes.last, try AuditRollupMinuteSendsSchema.exist(in: database) {
            try AuditRollupMinuteSendsSchema.rebuild(database, minutes: (first, last + 1))
        }
    }

    /// Counts the rows `condition` selects with `sign` in `rollup_requests` only (a change to
    /// a row's completion leaves its findings as they are).
    static func count(where condition: String, _ values: [SQLiteValue], sign: Int64, in database: any AuditSQL) throws {
        var fold = AuditRollupFold()
        for values in try database.select("SELECT \(columns) FROM requests WHERE \(condition)", values) { fold.add(row(values).1, sign: sign) }
        for statement in fold.statements(sends: try AuditRollupMinuteSendsSchema.exist(in: database)) { try statement.run(on: database) }
    }

    /// The findings of `count` requests (bound to their ids) with their app names, read by
    /// the findings' key and the log's id index: what pruning takes out of the rollups.
    static func findingsOfRequestsSQL(count: Int) -> String {
        let marks = Array(repeating: "?", count: max(1, count)).joined(separator: ", ")
        return "SELECT \(findingColumns) FROM findings f WHERE f.request_id IN (\(marks)) ORDER BY f.request_id, f.ordinal"
    }

    /// Takes the findings of `ids` out of `fold`.
    private static func foldFindings(of ids: [String], into fold: inout AuditRollupFold, in database: any AuditSQL) throws {
        foldFindings(try database.select(findingsOfRequestsSQL(count: ids.count), ids.map { .text($0) }), into: &fold, sign: -1)
    }

    /// Moves the intents `condition` selects from `request_log l` (the very ones recovery is
    /// about to give an `unknown` outcome, by the same condition, in the same transaction)
    /// from `pending` to `unknown` in the rollups: run just before recovery inserts their
    /// outcomes. It reads only those intents, never the whole log; an open intent has no
    /// completion figures, so one grouped upsert does it (each group once as `unknown`, once
    /// taken out of `pending`). `hourly`: the same for `rollup_requests_hourly`, run with it.
    static func moveToUnknownSQL(intents condition: String, hourly: Bool = false) -> String {
        let sends = "CASE WHEN l.translated LIKE '[%' THEN json_array_length(l.translated) ELSE 1 END"
        let dimensions = "l.received_at / \(hourly ? 3_600_000 : 60_000), coalesce(l.instance_name, ''), coalesce(l.source_app, ''), coalesce(l.app_name, ''), "
            + "coalesce(l.target_app, ''), coalesce(l.dialect, ''), coalesce(l.route, '')"
        // Readiness's OpenPush counters count neither `pending` nor `unknown`: left at their default.
        let key = hourly ? AuditRollupHourSchema.requestKey : AuditRollupSchema.requestKey
        let columns = (key + AuditRollupSchema.firstRequestCounters).joined(separator: ", ")
        let table = hourly ? AuditRollupHourSchema.requestsTable : "rollup_requests"
        let conflict = hourly ? AuditRollupHourSchema.requestsConflict : AuditRollupSchema.requestsConflict
        return """
            INSERT INTO \(table) (\(columns))
            SELECT \(dimensions), m.outcome, 0, 1, m.sign * count(*), m.sign * sum(\(sends)), 0, 0, 0, 0, 0, min(l.received_at), max(l.received_at)
            FROM request_log l CROSS JOIN (SELECT 'unknown' AS outcome, 1 AS sign UNION ALL SELECT 'pending', -1) m
            WHERE \(condition) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, m.sign ON CONFLICT \(conflict)
            """
    }
}

