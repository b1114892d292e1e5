import Foundation

/// Copies an SQLite audit file into a PostgreSQL audit (`pushbridge audit copy`): requests
/// (with their attempts), findings, shadow comparisons, the scheduled-send mirror, the
/// activity ledger, rollbacks and the stage history; the scheduler file's starts are moved by
/// ``moveScheduledStarts()``.
///
/// - The target is migrated first (``PostgresSchema``), so an empty database works.
/// - The file is read in one read transaction (one consistent snapshot, even while a proxy
///   writes it) and never changed. It is read in batches along each table's key; each batch
///   is one multi-row upsert in its own PostgreSQL transaction, so an interrupted copy keeps
///   what it committed and the next run completes it.
/// - Idempotent: a row is identified by its request id (and ordinal). A row PostgreSQL does
///   not have is inserted; a row it has with the same values is left alone (no write); a
///   row an earlier copy brought whose values have changed in the file since (a request
///   that was still `pending` then) is updated to the file's values, so copying a live file
///   once and again after stopping its proxy leaves the final rows. A row with the same id
///   that another instance wrote is never overwritten. A stage history row (no key, never
///   changed) is inserted only when the database has none with all its values.
/// - Column for column: ``AuditCopyTable`` accounts for every column of both schemas and the
///   copy refuses to start when either side has one it does not name.
public struct AuditCopy: Sendable {
    /// The SQLite audit file.
    public let path: String
    /// The PostgreSQL audit.
    public let uri: PostgresURI
    /// The `instance_name` given to copied rows whose file records none.
    public let instance: String
    /// Rows per batch (fewer for wide tables: a statement takes at most 65,535 parameters).
    public let batchSize: Int
    /// The scheduler file whose starts ``moveScheduledStarts()`` moves; nil: the one beside
    /// the audit file (see ``schedulerFile``).
    public let scheduler: String?

    /// A copy of the audit at `path` into `uri`; `instance` defaults to
    /// ``defaultInstance(forFile:)``.
    public init(from path: String, to uri: PostgresURI, instance: String? = nil, scheduler: String? = nil, batchSize: Int = 500) {
        self.path = path
        self.uri = uri
        self.scheduler = scheduler
        self.instance = instance ?? Self.defaultInstance(forFile: path)
        self.batchSize = max(1, batchSize)
    }

    /// `copied:<file name>`: the label of rows copied from the file at `path`.
    public static func defaultInstance(forFile path: String) -> String {
        "copied:" + URL(fileURLWithPath: path).lastPathComponent
    }

    /// One table as this copy sees it on both sides.
    struct Plan {
        var table: AuditCopyTable
        var sourceColumns: Set<String>
        var targetTypes: [String: String]
        var rows: Int
    }

    /// Copies every table; calls `progress` after each committed batch. Returns what
    /// happened per table. Throws ``ExistingFile/Missing`` when there is no file at ``path``
    /// (and creates none), ``AuditError/notAnAudit(_:)`` for a file that is not an audit,
    /// ``AuditCopyError`` when a column or value cannot be carried, and ``PostgresError``.
    public func run(progress: (AuditCopyProgress) -> Void = { _ in }) throws -> [AuditCopyCounts] {
        let source = try AuditDatabase.openForReading(path: ExistingFile.require(path, what: "audit file"), busyTimeout: .seconds(5))
        let target = try PostgresConnection(uri.text, connectTimeout: .seconds(5))
        try PostgresSchema.migrator.migrate(target)
        return try source.transaction(.deferred) {
            let plans = try AuditCopyTable.all.map { try plan($0, source: source, target: target) }
            let total = plans.reduce(0) { $0 + $1.rows }
            var done = 0
            let counts = try plans.map { plan in
                try copy(plan, from: source, to: target) { batch in
                    done += batch
                    progress(AuditCopyProgress(table: plan.table.name, done: done, total: total))
                }
            }
            try partitionCopiedDays(target)
            // The copied instances' rollups, recounted from their rows in PostgreSQL (a copy run
            // again inserts no row twice, and the recount counts none twice).
            let copied = counts.first { $0.table == AuditCopyTable.requests.name }
            let instances = Set((copied?.instanceNames.keys).map(Array.init) ?? []).union((copied?.labelled ?? 0) > 0 ? [instance] : [])
            if !instances.isEmpty { try target.inTransaction { try AuditRollupRows.fill(target, instances: instances.sorted()) } }
            return counts
        }
    }

    /// Reads both sides' columns and checks that the mapping covers them.
    func plan(_ table: AuditCopyTable, source: SQLiteDatabase, target: PostgresConnection) throws -> Plan {
        let sourceColumns = try source.rows("SELECT name FROM pragma_table_info(?)", [.text(table.name)]).compactMap { $0.first?.textValue }
        let typed = try target.execute("""
            SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
            WHERE attrelid = to_regclass($1)::oid AND attnum > 0 AND NOT attisdropped ORDER BY attnum
            """, [table.name]).rows
        let targetTypes = Dictionary(typed.compactMap { row in row[0].flatMap { name in row[1].map { (name, $0) } } }) { first, _ in first }
        if let problem = table.mismatch(source: sourceColumns, target: typed.compactMap { $0[0] }) {
            throw AuditCopyError("\(path): \(problem)")
        }
        let rows = sourceColumns.isEmpty ? 0 : try source.rows("SELECT count(*) FROM \(table.name)").first?.first?.integerValue ?? 0
        return Plan(table: table, sourceColumns: Set(sourceColumns), targetTypes: targetTypes, rows: Int(rows))
    }

    /// Copies one table batch by batch; `committed` is called with each batch's size.
    func copy(_ plan: Plan, from source: SQLiteDatabase, to target: PostgresConnection, committed: (Int) -> Void) throws -> AuditCopyCounts {
        var counts = AuditCopyCounts(table: plan.table.name)
        guard plan.rows > 0 else { return counts }
        let table = plan.table
        let limit = max(1, min(batchSize, 60_000 / table.columns.count))
        let selected = (table.order + table.columns).map { plan.sourceColumns.contains($0) ? $0 : "NULL" }
        var cursor: [SQLiteValue]?
        while true {
            let after = cursor.map { _ in "WHERE (\(table.order.joined(separator: ", "))) > (\(table.order.map { _ in "?" }.joined(separator: ", ")))" } ?? ""
            let rows = try source.rows("SELECT \(selected.joined(separator: ", ")) FROM \(table.name) \(after) ORDER BY \((table.sortedBy ?? table.order).joined(separator: ", ")) LIMIT ?",
                                       (cursor ?? []) + [.integer(Int64(limit))])
            guard let last = rows.last else { return counts }
            cursor = Array(last.prefix(table.order.count))
            let values = try rows.map { row in try parameters(Array(row.dropFirst(table.order.count)), table: table) }
            if let instanceIndex = table.columns.firstIndex(of: AuditCopyTable.instanceColumn) {
                for row in rows {
                    if case .text(let name) = row[table.order.count + instanceIndex] { counts.instanceNames[name, default: 0] += 1 } else { counts.labelled += 1 }
                }
            }
            let inserted = try target.transaction {
                try target.execute(upsert(table, rows: rows.count, types: plan.targetTypes), values.flatMap { $0 }).rows.map { $0.first ?? nil }
            }
            counts.read += rows.count
            counts.inserted += inserted.filter { $0 == "t" }.count
            counts.updated += inserted.filter { $0 == "f" }.count
            committed(rows.count)
            if rows.count < limit { return counts }
        }
    }

    /// One row's values as PostgreSQL text parameters, in ``AuditCopyTable/columns`` order.
    func parameters(_ row: [SQLiteValue], table: AuditCopyTable) throws -> [String?] {
        let key = zip(table.columns, row).filter { table.key.contains($0.0) }.map { "\($0.0) \(Self.describe($0.1))" }.joined(separator: ", ")
        return try zip(table.columns, row).map { column, value in
            if column == AuditCopyTable.instanceColumn, value == .null { return instance }
            return try Self.text(value, at: "\(table.name).\(column) of the row with \(key)")
        }
    }

    /// The multi-row upsert of `rows` rows: inserts new rows; updates a row only when it
    /// carries the same instance name (for a table that records one) and a value differs; returns whether each written row
    /// was inserted (`t`) or updated (`f`).
    func upsert(_ table: AuditCopyTable, rows: Int, types: [String: String]) -> String {
        let columns = table.columns
        let tuples = (0..<rows).map { row in
            "(" + columns.enumerated().map { index, column in "$\(row * columns.count + index + 1)::\(types[column] ?? "text")" }.joined(separator: ", ") + ")"
        }
        if table.appendOnly { return append(table, tuples: tuples) }
        if table.name == AuditCopyTable.requests.name { return upsertRequestLog(rows: rows, types: types) }
        if table.name == AuditCopyTable.findings.name { return upsertFindingList(rows: rows, types: types) }
        let changing = columns.filter { !table.key.contains($0) }
        let instance = AuditCopyTable.instanceColumn
        return """
            INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))
            ON CONFLICT (\(table.key.joined(separator: ", "))) DO UPDATE SET \(changing.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", "))
            WHERE \(columns.contains(instance) ? "\(table.name).\(instance) IS NOT DISTINCT FROM EXCLUDED.\(instance) AND " : "")(\(changing.map { "\(table.name).\($0)" }.joined(separator: ", "))) IS DISTINCT FROM (\(changing.map { "EXCLUDED.\($0)" }.joined(separator: ", ")))
            RETURNING (xmax = 0)
            """
    }

    /// The insert of an ``AuditCopyTable/appendOnly`` table's `tuples`: each row the
    /// database has no row with the same values in every copied column (NULL matching NULL);
    /// returns `t` for each row inserted.
    func append(_ table: AuditCopyTable, tuples: [String]) -> String {
        let columns = table.columns.joined(separator: ", ")
        return """
            INSERT INTO \(table.name) (\(columns)) SELECT \(columns) FROM (VALUES \(tuples.joined(separator: ", "))) AS copied (\(columns))
            WHERE NOT EXISTS (SELECT 1 FROM \(table.name) present
                              WHERE (\(table.columns.map { "present.\($0)" }.joined(separator: ", "))) IS NOT DISTINCT FROM (\(table.columns.map { "copied.\($0)" }.joined(separator: ", "))))
            RETURNING true
            """
    }

    /// An SQLite value as the text PostgreSQL reads back as the same value; throws for what
    /// a PostgreSQL text or number column cannot hold exactly (bytes, text with a NUL).
    static func text(_ value: SQLiteValue, at place: @autoclosure () -> String) throws -> String? {
        switch value {
        case .null: return nil
        case .integer(let integer): return String(integer)
        case .real(let real):
            if real.isNaN { return "NaN" }
            if real.isInfinite { return real < 0 ? "-Infinity" : "Infinity" }
            return "\(real)"
        case .text(let text):
            guard !text.utf8.contains(0) else { throw AuditCopyError("\(place()) holds a NUL character, which PostgreSQL text cannot store") }
            return text
        case .blob(let bytes):
            throw AuditCopyError("\(place()) holds \(bytes.count) bytes of binary data, which the PostgreSQL audit's column cannot store")
        }
    }

    private static func describe(_ value: SQLiteValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let integer): String(integer)
        case .real(let real): "\(real)"
        case .text(let text): text
        case .blob(let bytes): "\(bytes.count) bytes"
        }
    }
}
