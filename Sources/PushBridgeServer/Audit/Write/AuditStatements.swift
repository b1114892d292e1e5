/// The SQLite writer's connection and its prepared statements. Confined to the writer thread.
///
/// The file is a log (``AuditLogSchema``): a request's intent is one insert into
/// `request_log`, its completion one insert into `request_outcomes`, and a request answered
/// without upstream (`record`) both; nothing on this path updates a row. An answer passed on
/// as upstream sent it is stored once (``AuditAnswerOnceSchema``), and its findings inline in
/// the intent, no `findings` row (``AuditFindingsInlineSchema``). The static
/// ``apply(_:on:)`` is the PostgreSQL writer's, on its `requests` table.
final class AuditStatements {
    let database: SQLiteDatabase
    private let begin: SQLiteStatement
    private let commit: SQLiteStatement
    private let insertIntent: SQLiteStatement
    private let insertOutcome: SQLiteStatement
    private let finishIntent: SQLiteStatement
    private let mark: SQLiteStatement
    private let noteMinute: SQLiteStatement
    private let dataVersion: SQLiteStatement
    /// `PRAGMA data_version` as last read: it moves when another connection commits.
    private var seenDataVersion: Int64 = 0
    /// The minutes the open transaction's intents fall in (``AuditLogMinutesSchema``).
    private var minutes: AuditLogMinutes
    /// The activity ledger's statements by SQL, prepared on first use.
    private var ledgerStatements: [String: SQLiteStatement] = [:]
    /// This writer's intents still without outcome, for its mark in `audit_marks`.
    private var intents: AuditOpenIntents
    /// The instance whose mark this writer keeps.
    private let instance: String
    /// Intents written between two marks (a crash makes recovery read at most about this many
    /// log rows, plus any intent still open at the last mark).
    static let markEvery = 1_000

    /// The `requests` columns a row is written with, in ``AuditRowEncoding/requestRow(_:_:bodyLimit:instance:)``'s order.
    static let requestColumns = AuditRequestColumn.allCases.map(\.name)
    static let findingColumns = ["request_id", "ordinal", "dialect", "route", "source_app", "received_at", "field", "kind", "severity", "message", "instance_name"]
    /// The `requests` columns a completion fills, in ``AuditCompletionColumns/all``'s order.
    static let completionColumns = AuditRequestColumn.completion.map(\.name)

    /// The statements of the writer of `instance` on `database` (migrated and recovered: every
    /// intent through log id `settledThrough` has its outcome).
    init(database: SQLiteDatabase, instance: String, settledThrough: Int64) throws(SQLiteError) {
        self.database = database
        self.instance = instance
        intents = AuditOpenIntents(settledThrough: settledThrough)
        begin = try database.prepare("BEGIN IMMEDIATE TRANSACTION")
        commit = try database.prepare("COMMIT TRANSACTION")
        insertIntent = try database.prepare(Self.insertSQL("request_log", AuditRequestColumn.intent.map(\.name) + [AuditFindingsInlineSchema.column]))
        insertOutcome = try database.prepare(Self.insertSQL("request_outcomes", AuditLogSchema.outcomeColumns.map(\.name) + ["id"]))
        finishIntent = try database.prepare(Self.finishIntentSQL)
        mark = try database.prepare(AuditRecovery.markSQL)
        noteMinute = try database.prepare(AuditLogMinutesSchema.upsertSQL)
        dataVersion = try database.prepare("PRAGMA data_version")
        minutes = try AuditLogMinutes.load(database)
        seenDataVersion = try readDataVersion()
    }

    /// `PRAGMA data_version` now (no array made: read once a commit).
    private func readDataVersion() throws(SQLiteError) -> Int64 {
        defer { try? dataVersion.reset() }
        return try dataVersion.step() ? dataVersion.int64(at: 0) : 0
    }

    /// Where each `request_log` and `request_outcomes` column is in a row of ``requestColumns``.
    private static let intentPositions = AuditRequestColumn.intent.compactMap { AuditRequestColumn.allCases.firstIndex(of: $0) }
    private static let outcomePositions = AuditLogSchema.outcomeColumns.compactMap { AuditRequestColumn.allCases.firstIndex(of: $0) }
    private static let outcomePosition = AuditRequestColumn.allCases.firstIndex(of: .outcome) ?? 0
    private static let requestIdPosition = AuditRequestColumn.allCases.firstIndex(of: .requestId) ?? 0
    private static let receivedAtPosition = AuditRequestColumn.allCases.firstIndex(of: .receivedAt) ?? 0

    /// Whether a row of ``requestColumns`` is an intent alone (`begin`: outcome `pending`).
    private static func isIntentAlone(_ row: [SQLiteValue]) -> Bool {
        row.indices.contains(outcomePosition) && row[outcomePosition] == .text(AuditLogSchema.pending)
    }

    /// A completion of an intent (values: ``completionColumns``, then the request id): one
    /// insert whose `SELECT` is the indexed lookup of the intent (no intent: no row, and
    /// ``AuditError/unknownRequest(_:)``), copying its id (the outcome row's key,
    /// ``AuditOutcomeKeySchema``) and its `received_at`. A second completion of the same
    /// request (a handler finishing after the server answered for it, a late completion
    /// landing after a retry) meets the first on that key and replaces it: the rare path, an
    /// update of the outcome row only.
    static let finishIntentSQL = """
        INSERT INTO request_outcomes (id, request_id, received_at, \(completionColumns.joined(separator: ", ")))
        SELECT l.id, l.request_id, l.received_at, \(completionColumns.map { _ in "?" }.joined(separator: ", ")) FROM request_log l WHERE l.request_id = ?
        ON CONFLICT (id) DO UPDATE SET \(completionColumns.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
        """

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
    /// statements (the PostgreSQL writer's path for all but request rows, which
    /// ``AuditPostgresLogSQL/apply(_:on:)`` writes to the log; tests write old audits with it).
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

    /// Commits, with the minutes of the transaction's intents (``AuditLogMinutes``) and this
    /// writer's mark when ``markEvery`` intents went since the last (a mark that cannot be
    /// written is skipped: recovery then only reads further back).
    func commitTransaction() throws(SQLiteError) {
        // Another connection committed (`audit prune`, a tool's rows): the newest minute is read again.
        let version = try readDataVersion()
        if version != seenDataVersion {
            try minutes.reload(database)
            seenDataVersion = version
        }
        try minutes.write { values throws(SQLiteError) in try run(noteMinute, values) }
        if intents.sinceMark >= Self.markEvery, (try? writeMark()) != nil { intents.marked() }
        try run(commit, [])
        intents.committed()
        minutes.committed()
    }

    /// Writes the open minute's highest id into its row (the writer closes: the table then
    /// holds every minute's own range, ``AuditLogMinutes/close(_:)``).
    func closeMinutes() throws(SQLiteError) {
        try minutes.close { values throws(SQLiteError) in try run(noteMinute, values) }
    }

    /// The open transaction was rolled back.
    func rolledBack() {
        intents.rolledBack()
        minutes.rolledBack()
        // A reload inside it (after a prune) may have noted a row the rollback undid: read the
        // newest minute again at the next commit.
        seenDataVersion = -1
    }

    /// Writes this writer's mark (in the open transaction, or alone): every intent through
    /// ``AuditOpenIntents/settledThrough`` has its outcome.
    func writeMark() throws(SQLiteError) {
        try run(mark, [.text(instance), .integer(intents.settledThrough), .integer(AuditClock.nowMilliseconds())])
    }

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
                try run(insertIntent, Self.intentValues(row, findings))
                let id = database.lastInsertRowID
                minutes.wrote(receivedAt: row[Self.receivedAtPosition].integerValue ?? 0, id: id)
                if Self.isIntentAlone(row) {
                    intents.opened(row[Self.requestIdPosition].textValue ?? "", id: id)
                } else {
                    try run(insertOutcome, Self.outcomeValues(row, id: id))
                    intents.wroteSettled(id: id)
                }
                try runLedger(ledger)
            case .finish(let requestId, let values, let ledger):
                try run(finishIntent, Self.storingAnswerOnce(completion: values))
                guard database.changes == 1 else { throw AuditError.unknownRequest(requestId) }
                intents.completed(requestId)
                try runLedger(ledger)
            case .statement(let statement), .background(let statement):
                try statement.run(on: database)
            case .rollup(let statement):
                try runLedger(statement)
            case .prune(let requestIds):
                _ = try AuditPruning.delete(requestIds, in: database)
                // It may have deleted the newest minute's row.
                try minutes.reload(database)
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
        for statement in statements { try runLedger(statement) }
    }

    /// Runs one of them (a rollup's upsert comes alone: no array made for it).
    private func runLedger(_ statement: AuditStatement) throws {
        let prepared: SQLiteStatement
        if let cached = ledgerStatements[statement.sql] {
            prepared = cached
        } else {
            prepared = try database.prepare(statement.sql)
            ledgerStatements[statement.sql] = prepared
        }
        try run(prepared, statement.values)
    }

    /// A `request_log` row's values (``intentPositions`` of `row`, then the findings inline),
    /// made in one array of its final size.
    private static func intentValues(_ row: [SQLiteValue], _ findings: [[SQLiteValue]]) -> [SQLiteValue] {
        var values: [SQLiteValue] = []
        values.reserveCapacity(intentPositions.count + 1)
        for position in intentPositions { values.append(row[position]) }
        values.append(AuditRowEncoding.findingList(findings))
        return values
    }

    /// A `request_outcomes` row's values (``outcomePositions`` of `row`, then its key, the
    /// intent's log id `id`), its answer stored once where it can be.
    private static func outcomeValues(_ row: [SQLiteValue], id: Int64) -> [SQLiteValue] {
        var values: [SQLiteValue] = []
        values.reserveCapacity(outcomePositions.count + 1)
        for position in outcomePositions { values.append(row[position]) }
        values.append(.integer(id))
        return storingAnswerOnce(outcomeRow: values)
    }

    private func run(_ statement: SQLiteStatement, _ values: [SQLiteValue]) throws(SQLiteError) {
        // Resets after every run, not before: after a failed step, `sqlite3_reset` repeats
        // that step's error, which belongs to the failed run, not to the next one.
        try statement.run(borrowing: values)
    }
}
