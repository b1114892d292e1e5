import Synchronization

/// A batch of the request path's audit operations (request rows with their findings, and
/// completions) written to PostgreSQL as one libpq pipeline inside the writer's open
/// transaction: every statement and the `COMMIT` sent at once, the results read back in
/// order, so a batch costs one round trip after its `BEGIN` instead of one per statement.
///
/// The rules stay those of the statement-by-statement writer: an operation that fails on its
/// own (a duplicate request id) fails alone, and the rest are written again without it in a
/// new transaction; a completion for an unknown row changes nothing and fails alone, without
/// undoing the others; a lost connection fails the batch.
enum AuditPipeline {
    /// Whether `work` is only what a pipeline carries (request rows and completions); other
    /// operations (named statements, pruning) run one by one.
    static func carries(_ work: [AuditOperation.Work]) -> Bool {
        work.allSatisfy { work in
            switch work {
            case .insert, .finish: true
            case .statement, .prune, .background: false
            }
        }
    }

    /// Sends `operations` and the `COMMIT` as one pipeline inside the transaction the engine
    /// began, and reads what became of each. When one was refused the transaction is aborted
    /// (nothing committed): the writer loop rolls back and writes the batch again without the
    /// refused ones; a completion that found no row is tried again then (its row may be in
    /// the batch), unless refused as well, or the loop would try it forever.
    static func apply(_ operations: [(index: Int, work: AuditOperation.Work)], on connection: PostgresConnection, prepared: Bool) throws(AuditError) -> AuditApplied {
        var statements: [(sql: String, parameters: [String?])] = []
        // Which operation each statement belongs to and, for the first of a completion's (its
        // `UPDATE requests`, which must change its row), the request it completes.
        var owners: [(index: Int, completes: String?)] = []
        for (index, work) in operations {
            var first = true
            for statement in Self.statements(for: work) {
                statements.append(statement)
                owners.append((index, first ? Self.requestId(of: work) : nil))
                first = false
            }
        }
        statements.append(("COMMIT", []))
        let results: [PostgresConnection.PipelineResult]
        do throws(PostgresError) { results = try connection.pipeline(statements, prepared: prepared) } catch { throw .postgres(error) }
        var applied = AuditApplied()
        var unknown: [Int] = []
        // Operations one of whose statements the server refused: never tried again.
        var refused = Set<Int>()
        for (position, result) in results.dropLast().enumerated() {
            let (index, completes) = owners[position]
            switch result {
            case .failed(let error):
                applied.failures[index] = AuditError.wrap(error)
                refused.insert(index)
            case .done(let affected):
                if let requestId = completes, affected != 1 {
                    applied.failures[index] = AuditError.unknownRequest(requestId)
                    unknown.append(index)
                }
            case .skipped:
                break
            }
        }
        guard !refused.isEmpty else {
            // COMMIT ran: the rest is durable; completions of unknown rows changed nothing.
            if case .failed(let error)? = results.last { throw .postgres(error) }
            applied.committed = true
            return applied
        }
        applied.aborted = true
        applied.retry = Set(unknown).subtracting(refused)
        return applied
    }

    private static func requestId(of work: AuditOperation.Work) -> String? {
        if case .finish(let requestId, _, _) = work { return requestId }
        return nil
    }

    /// The SQL (with `$n` marks) and text parameters of one operation.
    private static func statements(for work: AuditOperation.Work) -> [(sql: String, parameters: [String?])] {
        switch work {
        case .insert(let row, let findings, let ledger):
            var out = [(insertRequestSQL, row.map(PostgresConnection.text))]
            if !findings.isEmpty {
                out.append((PostgresConnection.numberingMarks(AuditStatements.insertFindingsSQL(count: findings.count)),
                            findings.flatMap { $0 }.map(PostgresConnection.text)))
            }
            return out + ledger.map(pipelined)
        case .finish(_, let values, let ledger):
            // The ledger's statements take effect only when the row exists (see
            // ``ActivityLedgerSQL/statements(for:requestId:)``): a completion of an unknown row,
            // which fails here without an abort, leaves none of them.
            return [(finishSQL, values.map(PostgresConnection.text))] + ledger.map(pipelined)
        case .statement, .prune, .background:
            return []
        }
    }

    /// A named statement as pipeline SQL and parameters (its `?` marks numbered once per SQL).
    private static func pipelined(_ statement: AuditStatement) -> (sql: String, parameters: [String?]) {
        (numbered(statement.sql), statement.values.map(PostgresConnection.text))
    }

    /// `sql` with its marks numbered, cached: the ledger's few fixed statements are numbered once.
    private static func numbered(_ sql: String) -> String {
        if let cached = numberedSQL.withLock({ $0[sql] }) { return cached }
        let numbered = PostgresConnection.numberingMarks(sql)
        numberedSQL.withLock { $0[sql] = numbered }
        return numbered
    }

    private static let numberedSQL = Mutex<[String: String]>([:])
    private static let insertRequestSQL = PostgresConnection.numberingMarks(AuditStatements.insertRequestSQL)
    private static let finishSQL = PostgresConnection.numberingMarks(AuditStatements.finishSQL)
}
