/// The writer's connection and its prepared statements. Confined to the writer thread.
final class AuditStatements {
    let database: SQLiteDatabase
    private let begin: SQLiteStatement
    private let commit: SQLiteStatement
    private let insertRequest: SQLiteStatement
    private let insertFinding: SQLiteStatement
    private let finish: SQLiteStatement
    private let savepoint: SQLiteStatement
    private let releaseSavepoint: SQLiteStatement
    private let rollbackToSavepoint: SQLiteStatement
    /// The activity ledger's statements by SQL, prepared on first use.
    private var ledgerStatements: [String: SQLiteStatement] = [:]

    static let requestColumns = [
        "request_id", "received_at", "finished_at", "path", "dialect", "route", "source_app", "target_app",
        "activity_type", "activity_id", "event", "key_fingerprint", "inbound_body", "translated", "finding_count",
        "upstream_status", "upstream_body", "upstream_latency_ms", "attempts", "response_status", "response_body",
        "outcome", "error_message", "app_name", "instance_name",
    ]
    static let findingColumns = ["request_id", "ordinal", "dialect", "route", "source_app", "received_at", "field", "kind", "severity", "message", "instance_name"]
    static let completionColumns = [
        "finished_at", "upstream_status", "upstream_body", "upstream_latency_ms", "attempts", "response_status",
        "response_body", "outcome", "error_message",
    ]

    init(database: SQLiteDatabase) throws(SQLiteError) {
        self.database = database
        begin = try database.prepare("BEGIN IMMEDIATE TRANSACTION")
        commit = try database.prepare("COMMIT TRANSACTION")
        insertRequest = try database.prepare(Self.insertRequestSQL)
        insertFinding = try database.prepare(Self.insertSQL("findings", Self.findingColumns))
        finish = try database.prepare(Self.finishSQL)
        savepoint = try database.prepare("SAVEPOINT operation")
        releaseSavepoint = try database.prepare("RELEASE SAVEPOINT operation")
        rollbackToSavepoint = try database.prepare("ROLLBACK TO SAVEPOINT operation")
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
        case .statement(let statement), .background(let statement):
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

    /// Runs one operation inside the open transaction. An operation with activity-ledger
    /// changes runs under a savepoint, so that it takes effect whole or not at all (a failing
    /// statement alone would undo only itself).
    func apply(_ work: AuditOperation.Work) throws(AuditError) {
        do {
            switch work {
            case .insert(let row, let findings, let ledger):
                try atomically(if: !ledger.isEmpty) {
                    try run(insertRequest, row)
                    for finding in findings { try run(insertFinding, finding) }
                    try runLedger(ledger)
                }
            case .finish(let requestId, let values, let ledger):
                try atomically(if: !ledger.isEmpty) {
                    try run(finish, values)
                    guard database.changes == 1 else { throw AuditError.unknownRequest(requestId) }
                    try runLedger(ledger)
                }
            case .statement(let statement), .background(let statement):
                try statement.run(on: database)
            case .prune(let requestIds):
                _ = try AuditPruning.delete(requestIds, in: database)
            }
        } catch let error as AuditError {
            throw error
        } catch {
            throw AuditError.wrap(error)
        }
    }

    /// Runs `body` under the savepoint `operation` when `guarded`: released when it returns,
    /// rolled back to when it throws (unless the error already ended the transaction).
    private func atomically(if guarded: Bool, _ body: () throws -> Void) throws {
        guard guarded else { return try body() }
        try run(savepoint, [])
        do {
            try body()
        } catch {
            if database.isInTransaction {
                try run(rollbackToSavepoint, [])
                try run(releaseSavepoint, [])
            }
            throw error
        }
        try run(releaseSavepoint, [])
    }

    /// Runs the ledger's statements, each prepared once (their SQL is fixed but for the
    /// number of keys a prune deletes, which never comes here).
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
