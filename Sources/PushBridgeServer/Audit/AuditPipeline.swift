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
    /// Whether `batch` holds only what a pipeline carries (request rows and completions); other
    /// operations (named statements, pruning) run one by one.
    static func carries(_ batch: [AuditOperation]) -> Bool {
        batch.allSatisfy { operation in
            switch operation.work {
            case .insert, .finish: true
            case .statement, .prune, .background: false
            }
        }
    }

    /// Writes every operation of `batch` not yet in `failures` and commits, inside the
    /// transaction the caller began; records in `failures` each operation that failed.
    static func write(_ batch: [AuditOperation], failures: inout [Int: AuditError], on connection: PostgresConnection) throws {
        while true {
            var statements: [(sql: String, parameters: [String?])] = []
            // Which operation each statement belongs to; the first of a completion's is its
            // `UPDATE requests`, which must change its row.
            var owners: [(index: Int, completesRow: Bool)] = []
            for (index, operation) in batch.enumerated() where failures[index] == nil {
                var first = true
                for statement in Self.statements(for: operation.work) {
                    statements.append(statement)
                    if case .finish = operation.work { owners.append((index, first)) } else { owners.append((index, false)) }
                    first = false
                }
            }
            statements.append(("COMMIT", []))
            let results = try connection.pipeline(statements)
            var failed = false
            var unknown: [Int] = []
            // Operations one of whose statements the server refused: never tried again.
            var refused = Set<Int>()
            for (position, result) in results.dropLast().enumerated() {
                let (index, completesRow) = owners[position]
                switch result {
                case .failed(let error):
                    failures[index] = AuditError.wrap(error)
                    refused.insert(index)
                    failed = true
                case .done(let affected):
                    if completesRow, case .finish(let requestId, _, _) = batch[index].work, affected != 1 {
                        failures[index] = AuditError.unknownRequest(requestId)
                        unknown.append(index)
                    }
                case .skipped:
                    break
                }
            }
            guard failed else {
                // COMMIT ran: the rest is durable; completions of unknown rows changed nothing.
                if case .failed(let error)? = results.last { throw error }
                return
            }
            // The transaction is aborted: undo, begin again, and rewrite without the failures
            // (a completion that found no row is tried again too: its row may be in this batch).
            // An operation that was refused as well stays failed, or the loop would try it forever.
            for index in unknown where !refused.contains(index) { failures[index] = nil }
            try connection.execute("ROLLBACK")
            try connection.execute("BEGIN")
        }
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
