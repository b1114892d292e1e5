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

    private init(sqlitePath path: String, busyTimeout: Duration) throws(AuditError) {
        self.path = path
        let database = try AuditDatabase.openForReading(path: path, busyTimeout: busyTimeout)
        do { appNameColumn = try AuditDatabase.hasAppNames(database) ? "app_name" : "NULL" } catch { throw AuditError.wrap(error) }
        source = SQLiteReadSource(database)
    }

    /// Reads the PostgreSQL audit behind `pool` (migrated by a proxy or ``AuditStore``).
    init(pool: PostgresPool) throws(AuditError) {
        path = pool.uri.redacted
        appNameColumn = "app_name"
        source = pool
        let exists: Bool
        do {
            exists = try pool.withSQL { try $0.select("SELECT to_regclass('requests') IS NOT NULL", []).first?.first?.integerValue == 1 }
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
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(.integer(Int64(max(0, limit))))
        let sql = """
            SELECT request_id, received_at, dialect, route, source_app, event, outcome, response_status, upstream_latency_ms, finding_count, \(appNameColumn)
            FROM requests \(filter) ORDER BY received_at DESC, id DESC LIMIT ?
            """
        return try query(sql, arguments).map { row in
            AuditSummary(requestId: row[0].textValue ?? "", receivedAt: row[1].integerValue ?? 0, dialect: row[2].textValue,
                         route: row[3].textValue, sourceApp: row[4].textValue, event: row[5].textValue, outcome: row[6].textValue ?? "",
                         responseStatus: row[7].integerValue.map(Int.init), upstreamLatencyMs: Self.real(row[8]),
                         findingCount: Int(row[9].integerValue ?? 0), appName: row[10].textValue)
        }
    }

    /// The row and its findings, or nil when there is none.
    public func show(requestId: String) throws(AuditError) -> AuditRecord? {
        let columns = AuditStatements.requestColumns.filter { $0 != "instance_name" }.map { $0 == "app_name" ? appNameColumn : $0 }.joined(separator: ", ")
        guard let row = try query("SELECT \(columns) FROM requests WHERE request_id = ?", [.text(requestId)]).first else { return nil }
        let findings = try query("SELECT field, kind, severity, message FROM findings WHERE request_id = ? ORDER BY ordinal", [.text(requestId)])
            .map { f in
                Finding(field: f[0].textValue ?? "", kind: FindingKind(rawValue: f[1].textValue ?? "") ?? .caveat,
                        severity: Severity(rawValue: f[2].textValue ?? ""), message: f[3].textValue ?? "")
            }
        return Self.record(row, findings: findings)
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
                        let ids = try database.select(AuditPruning.candidatesSQL, [.integer(cutoff), .integer(5000)]).compactMap(\.first?.textValue)
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
        do { return try source.withSQL { try $0.select(sql, arguments) } } catch { throw AuditError.wrap(error) }
    }

    private static func real(_ value: SQLiteValue) -> Double? {
        switch value {
        case .real(let real): real
        case .integer(let integer): Double(integer)
        default: nil
        }
    }

    private static func record(_ row: [SQLiteValue], findings: [Finding]) -> AuditRecord {
        var entry = AuditEntry(
            requestId: row[0].textValue ?? "", receivedAt: row[1].integerValue ?? 0, path: row[3].textValue,
            dialect: row[4].textValue.flatMap(DialectName.init(rawValue:)), route: row[5].textValue.flatMap(RouteKind.init(rawValue:)),
            sourceApp: row[6].textValue, targetApp: row[7].textValue, activityType: row[8].textValue, activityId: row[9].textValue,
            event: row[10].textValue, keyFingerprint: row[11].textValue, inboundBody: row[12].textValue, translated: row[13].textValue,
            findings: findings)
        entry.appName = row[23].textValue
        return AuditRecord(
            entry: entry, outcome: row[21].textValue ?? "", finishedAt: row[2].integerValue, upstreamStatus: row[15].integerValue.map(Int.init),
            upstreamBody: row[16].textValue, upstreamLatencyMs: real(row[17]), attempts: row[18].textValue,
            responseStatus: row[19].integerValue.map(Int.init), responseBody: row[20].textValue, errorMessage: row[22].textValue)
    }
}
