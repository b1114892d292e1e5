/// `pushbridge audit copy`: an SQLite audit's rows, findings, shadow comparisons and
/// scheduled-start mirror copied into a PostgreSQL audit (migrated first), page by page in
/// key order, each page one transaction of `INSERT … ON CONFLICT DO NOTHING`. Idempotent: a
/// row already there (same request id, same key) is left as it is, so a second run, or a run
/// after an interrupted one, copies only what is missing. Columns a file predates are NULL.
public enum AuditCopy {
    /// One table's figures.
    public struct TableCount: Sendable, Equatable {
        /// The table.
        public var table: String
        /// Rows in the SQLite file.
        public var source: Int
        /// Rows this run inserted (the others were there already).
        public var inserted: Int
    }

    /// A table and the key its pages are read in (a unique key in both engines).
    struct Table {
        var name: String
        var key: [String]
    }

    static let tables = [
        Table(name: "requests", key: ["request_id"]),
        Table(name: "findings", key: ["request_id", "ordinal"]),
        Table(name: "shadow_comparisons", key: ["request_id"]),
        Table(name: "scheduled_sends", key: ["request_id", "ordinal"]),
    ]

    /// Copies the audit file at `path` into the database at `uri`; `progress(done, total)` is
    /// called after each page with the rows read so far. Returns each table's figures.
    public static func run(from path: String, to uri: String, pageSize: Int = 1_000,
                           progress: (Int, Int) -> Void = { _, _ in }) throws -> [TableCount] {
        let source = try AuditDatabase.openForReading(path: path, busyTimeout: .seconds(5))
        let target = try PostgresConnection(try PostgresURI(uri).text, connectTimeout: .seconds(10))
        try PostgresSchema.migrator.migrate(target)
        var counts: [TableCount] = []
        var totals: [Int] = []
        for table in tables {
            totals.append(Int(try source.rows("SELECT count(*) FROM \(table.name)").first?.first?.integerValue ?? 0))
        }
        let total = totals.reduce(0, +)
        var done = 0
        progress(0, total)
        for (table, count) in zip(tables, totals) {
            let columns = try sharedColumns(table.name, source: source, target: target)
            var inserted = 0
            var after: [SQLiteValue]?
            while true {
                let page = try readPage(table, columns: columns, after: after, limit: pageSize, from: source)
                guard !page.isEmpty else { break }
                inserted += try insert(page, into: table.name, columns: columns, on: target)
                done += page.count
                progress(done, total)
                after = table.key.map { key in page[page.count - 1][columns.firstIndex(of: key) ?? 0] }
            }
            counts.append(TableCount(table: table.name, source: count, inserted: inserted))
        }
        return counts
    }

    /// The columns of `table` in both databases, in the file's order (never PostgreSQL's `id`).
    static func sharedColumns(_ table: String, source: SQLiteDatabase, target: PostgresConnection) throws -> [String] {
        let fileColumns = try source.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0.first?.textValue }
        let serverColumns = Set(try target.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1",
                                                   [table]).rows.compactMap { $0.first ?? nil })
        return fileColumns.filter { $0 != "id" && serverColumns.contains($0) }
    }

    /// Up to `limit` rows after the key `after` (the first page when nil), in key order.
    static func readPage(_ table: Table, columns: [String], after: [SQLiteValue]?, limit: Int, from source: SQLiteDatabase) throws -> [[SQLiteValue]] {
        let key = "(" + table.key.joined(separator: ", ") + ")"
        let marks = "(" + table.key.map { _ in "?" }.joined(separator: ", ") + ")"
        let filter = after == nil ? "" : "WHERE \(key) > \(marks)"
        return try source.rows("SELECT \(columns.joined(separator: ", ")) FROM \(table.name) \(filter) ORDER BY \(table.key.joined(separator: ", ")) LIMIT ?",
                               (after ?? []) + [.integer(Int64(limit))])
    }

    /// Inserts `rows` in one transaction, skipping those already there; returns how many went in.
    static func insert(_ rows: [[SQLiteValue]], into table: String, columns: [String], on target: PostgresConnection) throws -> Int {
        let row = "(" + columns.map { _ in "?" }.joined(separator: ", ") + ")"
        let sql = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: rows.count).joined(separator: ", ") + " ON CONFLICT DO NOTHING"
        return try target.inTransaction { try target.change(sql, rows.flatMap { $0 }) }
    }
}
