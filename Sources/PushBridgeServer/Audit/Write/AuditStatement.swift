/// One named write the audit writer runs inside its group-commit transaction, or a tool runs
/// on its own connection: fixed SQL from this module (never built from input), its values,
/// and, for a write to one request's row, the request it must change.
struct AuditStatement: Sendable {
    /// What the statement is, for errors and logs (`complete scheduled request`, …).
    var name: String
    /// The SQL, from this module only.
    var sql: String
    /// The values bound to its `?` marks, in order.
    var values: [SQLiteValue]
    /// When set, the statement must change exactly this request's row; changing none throws
    /// ``AuditError/unknownRequest(_:)``.
    var requestId: String?
    /// The SQL an audit shaped as a log runs instead (``AuditSQL/isAuditLog()``), same marks
    /// and values, for a statement that writes the `requests` table (a view there); nil when
    /// ``sql`` is the same on both shapes.
    var logSQL: String? = nil
    /// What ``logSQL`` is on a log not yet keyed by its intents' ids
    /// (``AuditSQL/outcomesKeyedByIntent()``), same marks and values; nil when the same.
    var unkeyedLogSQL: String? = nil
    /// When set, the statement changes the completion of the rows this condition (on
    /// `requests`, with its values) selects: they leave their rollup counters before it runs
    /// and join their new ones after (a scheduled start's completion, a rare path).
    var rollupCondition: (sql: String, values: [SQLiteValue])? = nil

    /// `UPDATE table SET column = ?, … WHERE condition`: the columns and their values come as
    /// pairs, so that a column added to the list can never shift another's value.
    static func update(_ name: String, table: String, set columns: [(column: String, value: SQLiteValue)], where condition: String,
                       _ arguments: [SQLiteValue], requestId: String?) -> AuditStatement {
        let assignments = columns.map { "\($0.column) = ?" }.joined(separator: ", ")
        return AuditStatement(name: name, sql: "UPDATE \(table) SET \(assignments) WHERE \(condition)", values: columns.map(\.value) + arguments, requestId: requestId)
    }

    /// `INSERT INTO table (column, …) VALUES (?, …)` from name–value pairs that replaces the
    /// row with the same `key` columns (an upsert both engines run alike).
    static func insertOrReplace(_ name: String, table: String, key: [String], _ columns: [(column: String, value: SQLiteValue)]) -> AuditStatement {
        let names = columns.map(\.column).joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let updates = columns.map(\.column).filter { !key.contains($0) }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let sql = "INSERT INTO \(table) (\(names)) VALUES (\(marks)) ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET \(updates)"
        return AuditStatement(name: name, sql: sql, values: columns.map(\.value), requestId: nil)
    }

    /// Runs it on `database` (inside the caller's transaction, if any). Throws
    /// ``AuditError/unknownRequest(_:)`` when it must change one row and changed none.
    func run(on database: any AuditSQL) throws(AuditError) {
        let changed: Int
        do {
            let text = if let logSQL, try database.isAuditLog() {
                if let unkeyedLogSQL, try !database.outcomesKeyedByIntent() { unkeyedLogSQL } else { logSQL }
            } else {
                sql
            }
            if let condition = rollupCondition, let requestId, try AuditRollupRows.exist(in: database) {
                // The same condition as the change's: when it changes no row, neither does this.
                try AuditRollupRows.count(where: condition.sql, condition.values, sign: -1, in: database)
                changed = try database.change(text, values)
                if changed == 1 { try AuditRollupRows.count(where: "request_id = ?", [.text(requestId)], sign: 1, in: database) }
            } else {
                changed = try database.change(text, values)
            }
        } catch {
            throw AuditError.wrap(error)
        }
        if let requestId, changed != 1 { throw AuditError.unknownRequest(requestId) }
    }
}
