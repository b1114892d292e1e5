import Foundation

/// The fold's upserts (``AuditRollupFold/forEachStatement(hours:sends:_:)``) as the PostgreSQL
/// writer sends them: ONE statement per batch instead of one per table and chunk of rows
/// (issue 30, "PostgreSQL rollups in one statement"). Each table's upsert becomes
/// `INSERT INTO table (columns) SELECT * FROM unnest($n::TYPE[], …) ON CONFLICT …` with the
/// same columns and the same `ON CONFLICT` clause as the fold's `VALUES` form, its arrays in
/// PostgreSQL's binary format (``AuditMultiRow/arrayParameters(_:_:)``), and the five are
/// joined as data-modifying CTEs (`WITH w1 AS (INSERT …), … SELECT 1`). A table the batch did
/// not touch gets empty arrays, so the text is the same for every batch (prepared once per
/// connection).
///
/// The counters written are those of the five statements: each table's rows are the fold's,
/// in its order, and the fold writes each counter row once per batch (its key a dictionary's),
/// so no two rows of one table share a conflict key (`ON CONFLICT DO UPDATE` cannot touch a
/// row twice in one command); the five tables are distinct. SQLite keeps the fold's statements.
enum AuditRollupPostgresUpsert {
    /// One table of the statement: the fold's name for its upserts, and its columns (in the
    /// values' order) with their PostgreSQL types.
    struct Table {
        var name: String
        var columns: AuditMultiRow.Columns
        /// `ON CONFLICT …`, as the fold's statement has it.
        var conflict: String

        /// The table of the fold's upsert `sql` (`INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT …`).
        init(name: String, sql: String) {
            let head = sql.prefix { $0 != "(" }
            let table = String(head.dropFirst("INSERT INTO ".count)).trimmingCharacters(in: .whitespaces)
            let names = sql.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            self.name = name
            columns = AuditMultiRow.Columns(table: table, names: names, types: names.map(Self.type))
            conflict = String(sql[sql.range(of: " ON CONFLICT ")!.lowerBound...])
        }

        /// A rollup column's PostgreSQL type, as ``AuditRollupSchema/table(_:_:_:sqlite:defaults:)``
        /// declares it (a test compares them with the database's).
        static func type(_ column: String) -> String {
            if AuditRollupSchema.textColumns.contains(column) { return "TEXT" }
            return realColumns.contains(column) ? "DOUBLE PRECISION" : "BIGINT"
        }

        /// The rollups' real columns (every other number is a `BIGINT`).
        static let realColumns: Set<String> = ["latency_ms", "rate_limit_wait_ms"]
    }

    /// The tables in the fold's order: minutes, the busiest minute's sends, hours.
    static let tables: [Table] = [
        Table(name: AuditRollupFold.UpsertName.requests, sql: AuditRollupSchema.upsertRequestsSQL(rows: 1)),
        Table(name: AuditRollupFold.UpsertName.findings, sql: AuditRollupSchema.upsertFindingsSQL(rows: 1)),
        Table(name: AuditRollupFold.UpsertName.sends, sql: AuditRollupMinuteSendsSchema.upsertSQL(rows: 1)),
        Table(name: AuditRollupFold.UpsertName.requestsHourly, sql: AuditRollupHourSchema.upsertRequestsSQL(rows: 1)),
        Table(name: AuditRollupFold.UpsertName.findingsHourly, sql: AuditRollupHourSchema.upsertFindingsSQL(rows: 1)),
    ]

    /// The statement: one CTE per table, each column an array parameter.
    static let sql: String = {
        var next = 1
        let parts = tables.enumerated().map { position, table in
            let arrays = table.columns.types.map { type in
                defer { next += 1 }
                return "$\(next)::\(type)[]"
            }
            return "w\(position + 1) AS (INSERT INTO \(table.columns.table) (\(table.columns.names.joined(separator: ", "))) "
                + "SELECT * FROM unnest(\(arrays.joined(separator: ", ")))\(table.conflict))"
        }
        return "WITH " + parts.joined(separator: ", ") + " SELECT 1"
    }()

    /// `operations` without the fold's upserts, and those as one statement (nil when there
    /// were none) with the place it goes in the batch's plan (``placed(_:in:)``).
    static func gather(_ operations: [(index: Int, work: AuditOperation.Work)])
        -> (rest: [(index: Int, work: AuditOperation.Work)], upsert: (statement: AuditPipeline.Statement, after: Int)?) {
        guard operations.contains(where: { table(of: $0.work) != nil }) else { return (operations, nil) }
        var rest: [(index: Int, work: AuditOperation.Work)] = []
        rest.reserveCapacity(operations.count)
        var values = [[[SQLiteValue]]](repeating: [], count: tables.count)
        var first = Int.max, last = Int.min
        for operation in operations {
            guard let table = table(of: operation.work), case .rollup(let statement) = operation.work else {
                rest.append(operation)
                continue
            }
            values[table].append(statement.values)
            first = min(first, operation.index)
            last = max(last, operation.index)
        }
        let parameters = tables.indices.flatMap { arrays(tables[$0].columns, values[$0]) }
        return (rest, (AuditPipeline.Statement(sql: sql, parameters: parameters, owner: .one(first, completes: nil)), last))
    }

    /// `plan` with `upsert` where the fold's statements were: before the first statement of
    /// an operation that followed them (the carry's settling), else last.
    static func placed(_ upsert: (statement: AuditPipeline.Statement, after: Int), in plan: [AuditPipeline.Statement]) -> [AuditPipeline.Statement] {
        var plan = plan
        let position = plan.firstIndex { statement in
            if case .one(let index, _) = statement.owner { index > upsert.after } else { false }
        }
        plan.insert(upsert.statement, at: position ?? plan.endIndex)
        return plan
    }

    /// Which of ``tables`` `work` upserts, or nil when it is not one of the fold's upserts.
    private static func table(of work: AuditOperation.Work) -> Int? {
        guard case .rollup(let statement) = work else { return nil }
        return tables.firstIndex { $0.name == statement.name }
    }

    /// One array parameter per column of `columns` for the rows of `chunks` (each the fold's
    /// values of one statement, row after row): binary, or a column's text literal where a
    /// value's binary form would not read back as its text (``AuditMultiRow/arrayParameters(_:_:)``).
    private static func arrays(_ columns: AuditMultiRow.Columns, _ chunks: [[SQLiteValue]]) -> [PostgresParameter] {
        let values = chunks.count == 1 ? chunks[0] : Array(chunks.joined())
        let width = columns.names.count
        let rows = 0..<values.count / width
        return columns.types.indices.map { column in
            if let element = PostgresBinaryArray.Element(sqlType: columns.types[column]),
               let bytes = PostgresBinaryArray.encode(rows.lazy.map { values[$0 * width + column] }, of: element) {
                return .binary(bytes)
            }
            let split = ArraySlice(rows.map { Array(values[$0 * width..<($0 + 1) * width]) })
            return PostgresParameter(AuditMultiRow.arrays(split, width)[column])
        }
    }
}
