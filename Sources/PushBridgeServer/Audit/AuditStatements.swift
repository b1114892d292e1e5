/// The writer's connection and its prepared statements. Confined to the writer thread.
final class AuditStatements {
    let database: SQLiteDatabase
    private let begin: SQLiteStatement
    private let commit: SQLiteStatement
    private let insertRequest: SQLiteStatement
    private let insertFinding: SQLiteStatement
    private let finish: SQLiteStatement
    /// The activity ledger's statements by SQL, prepared on first use.
    private var ledgerStatements: [String: SQLiteStatement] = [:]

    /// The `requests` columns a row is written with, in ``AuditRowEncoding/requestRow(_:_:bodyLimit:instance:)``'s order.
    static let requestColumns = AuditRequestColumn.allCases.map(\.name)
    static let findingColumns = ["request_id", "ordinal", "dialect", "route", "source_app", "received_at", "field", "kind", "severity", "message", "instance_name"]
    /// The `requests` columns a completion fills, in ``AuditCompletionColumns/all``'s order.
    static let completionColumns = AuditRequestColumn.completion.map(\.name)

    init(database: SQLiteDatabase) throws(SQLiteError) {
        self.database = database
        begin = try database.prepare("BEGIN IMMEDIATE TRANSACTION")
        commit = try database.prepare("COMMIT TRANSACTION")
        insertRequest = try database.prepare(Self.insertRequestSQL)
        insertFinding = try database.prepare(Self.insertSQL("findings", Self.findingColumns))
        finish = try database.prepare(Self.finishSQL)
    }

    /// `INSERT INTO requests …` with a mark per column.
    static let insertRequestSQL = insertSQL("requests", requestColumns)
    /// `UPDATE requests SET <completion columns> WHERE request_id = ?`.
    static let finishSQL = "UPDATE requests SET \(completionColumns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE request_id = ?"

    /// One `INSERT INTO findings` of `count` rows.
    static func insertFindingsSQL(count: Int) -> String {
        let row = "(" + Array(repeating: "?", count: findingColumns.count).joined(separator: ", ") + ")"
        return "INSERT INTO findings (\(findingColumns.joined(separator: ", "))) VALUES " + Array(repeating: row, count: count).joined(separator: ", ")
    }

    /// Runs one operation on `database` inside its open transaction, without prepared
    /// statements (the PostgreSQL writer's path).
    static func apply(_ work: AuditOperation.Work, on database: any AuditSQL) throws {
        switch work {
        case .insert(let row, let findings, let ledger):
            try database.change(insertRequestSQL, row)
            if !findings.isEmpty { try database.change(insertFindingsSQL(count: findings.count), findings.flatMap { $0 }) }
            for statement in ledger { try statement.run(on: database) }
        case .finish(let requestId, let values, let ledger):
            guard try database.change(finishSQL, values) == 1 else { throw AuditError.unknownRequest(requestId) }
            for statement in ledger { try statement.run(on: database) }
        case .statement(let statement), .background(let statement), .rollup(let statement):
            try statement.run(on: database)
        case .prune(let requestIds):
            _ = try AuditPruning.delete(requestIds, in: database)
        }
    }

    private static func insertSQL(_ table: String, _ columns: [String]) -> String {
        "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
    }

    func beginTransaction() throws(SQLiteError) { try run(begin, []) }

    func commitTransaction() throws(SQLiteError) { try run(commit, []) }

    /// Runs one operation inside the open transaction. The activity-ledger changes an
    /// operation carries run after its row's statement succeeded, so a row that fails (a
    /// duplicate id, an unknown request) leaves none. They have no failure of their own to
    /// undo: every value is typed and present and a start upserts, so only an engine error
    /// (I/O, disk full) can stop one, and that fails the transaction. (A savepoint per
    /// operation cost ~120 KiB of statement-journal writes per request, measured.)
    func apply(_ work: AuditOperation.Work) throws(AuditError) {
        do {
            switch work {
            case .insert(let row, let findings, let ledger):
                try run(insertRequest, row)
                for finding in findings { try run(insertFinding, finding) }
                try runLedger(ledger)
            case .finish(let requestId, let values, let ledger):
                try run(finish, values)
                guard database.changes == 1 else { throw AuditError.unknownRequest(requestId) }
                try runLedger(ledger)
            case .statement(let statement), .background(let statement):
                try statement.run(on: database)
            case .rollup(let statement):
                try runLedger([statement])
            case .prune(let requestIds):
                _ = try AuditPruning.delete(requestIds, in: database)
            }
        } catch let error as AuditError {
            throw error
        } catch {
            throw AuditError.wrap(error)
        }
    }

    /// Runs the ledger's statements (and the rollups' upserts), each prepared once (their SQL
    /// is fixed but for the number of keys a prune deletes, which never comes here).
    private func runLedger(_ statements: [AuditStatement]) throws {
        for statement in statements {
            let prepared: SQLiteStatement
            if let cached = ledgerStatements[statement.sql] {
                prepared = cached
            } else {
                prepared = try database.prepare(statement.sql)
                ledgerStatements[statement.sql] = prepared
            }
            try run(prepared, statement.values)
        }
    }

    private func run(_ statement: SQLiteStatement, _ values: [SQLiteValue]) throws(SQLiteError) {
        // Resets after every run, not before: after a failed step, `sqlite3_reset` repeats
        // that step's error, which belongs to the failed run, not to the next one.
        try statement.run(borrowing: values)
    }
}
