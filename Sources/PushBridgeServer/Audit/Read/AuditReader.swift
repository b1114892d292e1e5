import PushBridgeCore
import Synchronization

/// The read side of an audit on its own connection: `audit list`, `audit show`, `audit
/// prune`, the report and readiness. Works on a file a running proxy is writing (WAL lets
/// readers and the writer run side by side), or on a PostgreSQL audit through a pool; never
/// creates or migrates a database.
public final class AuditReader: Sendable {
    /// The database file, or the PostgreSQL URI.
    public let path: String
    private let source: any AuditReadSource
    /// `requests.app_name`, or `NULL` in a file no proxy of this build has migrated yet.
    let appNameColumn: String
    /// Whether the audit has the per-minute rollups (a file no proxy of this build has
    /// migrated has not: its reports read the rows).
    let hasRollups: Bool
    /// Whether readiness reads its shadow figures' whole hours from the shadow rollup
    /// (``AuditRollupShadowSchema``): the audit has it and the rollups are read at all.
    let hasShadowRollup: Bool
    /// Whether the audit has the busiest minute's table too (``AuditRollupMinuteSendsSchema``;
    /// without it the busiest minute reads `rollup_requests`).
    let hasMinuteSends: Bool
    /// Whether the log is read by time through its minutes' id ranges (``AuditLogMinutesSchema``:
    /// a file a writer of this build opened), not an index on `received_at`.
    let hasLogMinutes: Bool
    /// The SQL of every query the reader runs while this holds an array (nil: none kept): the
    /// tests count the passes a report or readiness makes over a table.
    let recordedQueries = Mutex<[String]?>(nil)

    /// Opens the existing audit at `path`: an SQLite file, or a `postgresql://` URI. Throws
    /// ``AuditError/notAnAudit(_:)`` for a database that holds none.
    public convenience init(path: String, busyTimeout: Duration = .seconds(5)) throws(AuditError) {
        if PostgresURI.isPostgres(path) {
            let uri: PostgresURI
            do throws(PostgresError) { uri = try PostgresURI(path) } catch { throw .postgres(error) }
            try self.init(pool: PostgresPool(uri: uri))
        } else {
            try self.init(sqlitePath: path, busyTimeout: busyTimeout)
        }
    }

    /// A reader of the audit at `path` (a file or a PostgreSQL URI) that reads every figure
    /// from the rows, as an audit without rollups is read (the tests' oracle for the rollups').
    static func rowsOnly(_ path: String) throws(AuditError) -> AuditReader {
        guard PostgresURI.isPostgres(path) else { return try AuditReader(sqlitePath: path, busyTimeout: .seconds(5), ignoringRollups: true) }
        let uri: PostgresURI
        do throws(PostgresError) { uri = try PostgresURI(path) } catch { throw .postgres(error) }
        return try AuditReader(pool: PostgresPool(uri: uri), ignoringRollups: true)
    }

    private init(sqlitePath path: String, busyTimeout: Duration, ignoringRollups: Bool = false) throws(AuditError) {
        self.path = path
        let database = try AuditDatabase.openForReading(path: path, busyTimeout: busyTimeout)
        do {
            appNameColumn = try AuditDatabase.hasAppNames(database) ? "app_name" : "NULL"
            hasRollups = try !ignoringRollups && AuditRollupRows.exist(in: database)
            hasShadowRollup = try hasRollups && AuditRollupShadowSchema.exist(in: database)
            hasMinuteSends = try hasRollups && AuditRollupMinuteSendsSchema.exist(in: database)
            hasLogMinutes = try AuditLogMinutesSchema.exist(in: database)
        } catch {
            throw AuditError.wrap(error)
        }
        source = SQLiteReadSource(database)
    }

    /// Reads the PostgreSQL audit behind `pool` (migrated by a proxy or ``AuditStore``).
    init(pool: PostgresPool, ignoringRollups: Bool = false) throws(AuditError) {
        path = pool.uri.redacted
        appNameColumn = "app_name"
        source = pool
        hasLogMinutes = false
        let exists: Bool
        do {
            exists = try pool.withSQL { try $0.select("SELECT to_regclass('requests') IS NOT NULL", []).first?.first?.integerValue == 1 }
            hasRollups = try !ignoringRollups && pool.withSQL { try AuditRollupRows.exist(in: $0) }
            hasShadowRollup = try hasRollups && pool.withSQL { try AuditRollupShadowSchema.exist(in: $0) }
            hasMinuteSends = try hasRollups && pool.withSQL { try AuditRollupMinuteSendsSchema.exist(in: $0) }
        } catch {
            throw AuditError.wrap(error)
        }
        guard exists else { throw AuditError.notAnAudit(pool.uri.redacted) }
    }

    /// The newest rows first, at most `limit`, received at or after `since` and before `until`
    /// (Unix ms), with the given outcome and app (its configured name or its source app id) when set.
    public func list(limit: Int = 50, since: Int64? = nil, until: Int64? = nil, outcome: String? = nil, app: String? = nil) throws(AuditError) -> [AuditSummary] {
        var conditions: [String] = []
        var arguments: [SQLiteValue] = []
        if let since { conditions.append("received_at >= ?"); arguments.append(.integer(since)) }
        if let until { conditions.append("received_at < ?"); arguments.append(.integer(until)) }
        if let outcome { conditions.append("outcome = ?"); arguments.append(.text(outcome)) }
        if let app { conditions.append("(source_app = ? OR \(appNameColumn) = ?)"); arguments += [.text(app), .text(app)] }
        arguments.append(.integer(Int64(max(0, limit))))
        let columns: [AuditRequestColumn] = [.requestId, .receivedAt, .dialect, .route, .sourceApp, .event, .outcome, .responseStatus,
                                             .upstreamLatencyMs, .findingCount, .appName]
        let rows = try newestRows(since: since, until: until, limit: max(0, limit)) { (from: Int64?) throws(AuditError) in
            let window = conditions + (from.map { ["received_at >= \($0)"] } ?? []) + logBounds("id", since: from ?? since, until: until)
            return try query("""
                SELECT \(AuditRequestRow.selectList(columns, appNameColumn: appNameColumn))
                FROM requests \(window.isEmpty ? "" : "WHERE " + window.joined(separator: " AND ")) ORDER BY received_at DESC, id DESC LIMIT ?
                """, arguments)
        }
        return rows.map { values in
            let row = AuditRequestRow(columns: columns, values: values)
            return AuditSummary(requestId: row.text(.requestId) ?? "", receivedAt: row.integer(.receivedAt) ?? 0, dialect: row.text(.dialect),
                                route: row.text(.route), sourceApp: row.text(.sourceApp), event: row.text(.event), outcome: row.text(.outcome) ?? "",
                                responseStatus: row.integer(.responseStatus).map(Int.init), upstreamLatencyMs: row.real(.upstreamLatencyMs),
                                findingCount: Int(row.integer(.findingCount) ?? 0), appName: row.text(.appName))
        }
    }

    /// The row and its findings, or nil when there is none.
    public func show(requestId: String) throws(AuditError) -> AuditRecord? {
        let columns = AuditRequestColumn.allCases.filter { $0 != .instanceName }
        let sql = "SELECT \(AuditRequestRow.selectList(columns, appNameColumn: appNameColumn)) FROM requests WHERE request_id = ?"
        guard let values = try query(sql, [.text(requestId)]).first else { return nil }
        let findings = try query("SELECT field, kind, severity, message FROM findings WHERE request_id = ? ORDER BY ordinal", [.text(requestId)])
            .map { f in
                Finding(field: f[0].textValue ?? "", kind: FindingKind(rawValue: f[1].textValue ?? "") ?? .caveat,
                        severity: Severity(rawValue: f[2].textValue ?? ""), message: f[3].textValue ?? "")
            }
        return Self.record(AuditRequestRow(columns: columns, values: values), findings: findings)
    }

    /// Deletes rows received more than `days` days before `now` (Unix ms) with their findings,
    /// shadow comparisons and scheduled sends, in transactions of 5,000 rows so a running
    /// writer is never held up for long. Rows still `pending` or `scheduled` are kept. Returns
    /// the rows deleted.
    public func prune(olderThanDays days: Int, now: Int64 = AuditClock.nowMilliseconds()) throws(AuditError) -> Int {
        let cutoff = now - Int64(max(0, days)) * 86_400_000
        var total = 0
        while true {
            let deleted: Int
            do {
                deleted = try source.withSQL { database in
                    try database.inTransaction {
                        let ids = try database.select(pruneCandidatesSQL, [.integer(cutoff), .integer(5000)]).compactMap(\.first?.textValue)
                        return try AuditPruning.delete(ids, in: database)
                    }
                }
            } catch {
                throw AuditError.wrap(error)
            }
            total += deleted
            if deleted < 5000 { return total }
        }
    }

    /// Deletes the rows `requestIds` (unless pending or scheduled) and what belongs to them in
    /// one transaction on the reader's own connection, not the writer's: the running proxy's
    /// retention on PostgreSQL, whose row locks let it run beside the writer's request
    /// batches. Returns how many rows went.
    func delete(_ requestIds: [String]) throws(AuditError) -> Int {
        do {
            return try source.withSQL { database in try database.inTransaction { try AuditPruning.delete(requestIds, in: database) } }
        } catch {
            throw AuditError.wrap(error)
        }
    }

    /// Runs one named write in a transaction of its own on the reader's connection (the
    /// activity ledger's upkeep on PostgreSQL, beside the writer); returns the rows it changed.
    func change(_ statement: AuditStatement) throws(AuditError) -> Int {
        do {
            return try source.withSQL { database in try database.inTransaction { try database.change(statement.sql, statement.values) } }
        } catch {
            throw AuditError.wrap(error)
        }
    }

    /// Runs a query on the reader's connection.
    func query(_ sql: String, _ arguments: [SQLiteValue] = []) throws(AuditError) -> [[SQLiteValue]] {
        recordedQueries.withLock { $0?.append(sql) }
        do { return try source.withSQL { try $0.select(sql, arguments) } } catch { throw AuditError.wrap(error) }
    }

    /// Runs one statement on the reader's connection; returns the rows it changed.
    func change(_ sql: String, _ arguments: [SQLiteValue] = []) throws(AuditError) -> Int {
        do { return try source.withSQL { try $0.change(sql, arguments) } } catch { throw AuditError.wrap(error) }
    }

    private static func record(_ row: AuditRequestRow, findings: [Finding]) -> AuditRecord {
        var entry = AuditEntry(
            requestId: row.text(.requestId) ?? "", receivedAt: row.integer(.receivedAt) ?? 0, path: row.text(.path),
            dialect: row.text(.dialect).flatMap(DialectName.init(rawValue:)), route: row.text(.route).flatMap(RouteKind.init(rawValue:)),
            sourceApp: row.text(.sourceApp), targetApp: row.text(.targetApp), activityType: row.text(.activityType),
            activityId: row.text(.activityId), event: row.text(.event), keyFingerprint: row.text(.keyFingerprint),
            inboundBody: row.text(.inboundBody), translated: row.text(.translated), findings: findings)
        entry.appName = row.text(.appName)
        return AuditRecord(
            entry: entry, outcome: row.text(.outcome) ?? "", finishedAt: row.integer(.finishedAt),
            upstreamStatus: row.integer(.upstreamStatus).map(Int.init), upstreamBody: row.text(.upstreamBody),
            upstreamLatencyMs: row.real(.upstreamLatencyMs), attempts: row.text(.attempts),
            responseStatus: row.integer(.responseStatus).map(Int.init), responseBody: row.text(.responseBody),
            errorMessage: row.text(.errorMessage))
    }
}
