import Synchronization

/// A batch of the request path's audit operations (request rows with their findings, and
/// completions) written to PostgreSQL as one libpq pipeline inside the writer's open
/// transaction: every statement and the `COMMIT` sent at once, the results read back in
/// order, so a batch costs one round trip after its `BEGIN` instead of one per statement.
///
/// The statements are either one per row (``rowByRow(_:)``) or, with a multi-row form, one
/// per kind of row for the whole batch (``multiRow(_:form:)``, ``AuditMultiRow``).
///
/// The rules stay those of the statement-by-statement writer: an operation that fails on its
/// own (a duplicate request id) fails alone, and the rest are written again without it in a
/// new transaction; a completion for an unknown row changes nothing and fails alone, without
/// undoing the others; a lost connection fails the batch. A multi-row statement the server
/// refuses cannot name the row that failed: the batch is then rolled back and written again
/// one statement per row, which does.
enum AuditPipeline {
    /// One statement of a pipeline and the operations it writes.
    struct Statement {
        var sql: String
        var parameters: [PostgresParameter]
        var owner: Owner
    }

    /// Which operations a statement writes.
    enum Owner {
        /// One operation's; `completes`: the request whose row it must change (exactly one).
        case one(Int, completes: String?)
        /// Rows of many operations: a refusal cannot be pinned on one of them.
        case many([Int])
        /// Completions of many operations, returning the id of each row changed.
        case completions([(index: Int, requestId: String)])
    }

    /// Whether `work` is only what a pipeline carries: request rows and completions and, with
    /// `statements`, named statements (the multi-row plan sends each as it is); pruning,
    /// background work and a statement that moves its row's rollup count (it reads its row
    /// before and after its change) never.
    static func carries(_ work: [AuditOperation.Work], statements: Bool = false) -> Bool {
        work.allSatisfy { work in
            switch work {
            case .insert, .finish, .rollup: true
            case .statement(let statement): statements && statement.rollupCondition == nil
            case .prune, .background: false
            }
        }
    }

    /// Sends `plan` (headed by `BEGIN` with `begin`: the engine's transaction opened in the same
    /// round trip) and, with `commit`, the `COMMIT` as one pipeline inside the transaction the
    /// engine began, and reads what became of each operation (without `commit` the engine
    /// commits afterwards). When one was refused the transaction is
    /// aborted (nothing committed): the writer loop rolls back and writes the batch again
    /// without the refused ones; a completion that found no row is tried again then (its row
    /// may be in the batch), unless refused as well, or the loop would try it forever.
    /// `rowByRow` in the answer: a statement of many operations was refused, so none was
    /// failed and the batch must be written again one statement per row.
    static func apply(_ plan: [Statement], on connection: PostgresConnection, prepared: Bool, begin: Bool = false,
                      commit: Bool = true) throws(AuditError) -> (applied: AuditApplied, rowByRow: Bool) {
        let opening: [(String, [PostgresParameter])] = begin ? [("BEGIN", []), (AuditPostgresLogSQL.writerSettingsSQL, [])] : []
        let statements = opening + plan.map { ($0.sql, $0.parameters) } + (commit ? [("COMMIT", [])] : [])
        var results: [PostgresConnection.PipelineResult]
        do throws(PostgresError) { results = try connection.pipeline(statements, prepared: prepared) } catch { throw .postgres(error) }
        for _ in opening {
            if case .failed(let error)? = results.first { throw .postgres(error) }
            results.removeFirst()
        }
        var applied = AuditApplied()
        var unknown: [Int] = []
        // Operations one of whose statements the server refused: never tried again.
        var refused = Set<Int>()
        var rowByRow = false
        for (statement, result) in zip(plan, results) {
            switch (result, statement.owner) {
            case (.failed(let error), .one(let index, _)):
                applied.failures[index] = AuditError.wrap(error)
                refused.insert(index)
            case (.failed, .many), (.failed, .completions):
                rowByRow = true
            case (.done(let affected, _), .one(let index, let requestId?)) where affected != 1:
                applied.failures[index] = AuditError.unknownRequest(requestId)
                unknown.append(index)
            case (.done(_, let returned), .completions(let completions)):
                let changed = Set(returned)
                for (index, requestId) in completions where !changed.contains(requestId) {
                    applied.failures[index] = AuditError.unknownRequest(requestId)
                    unknown.append(index)
                }
            case (.done, _), (.skipped, _):
                break
            }
        }
        guard refused.isEmpty && !rowByRow else {
            applied.aborted = true
            applied.retry = rowByRow ? [] : Set(unknown).subtracting(refused)
            if rowByRow { applied.failures = [:] }
            return (applied, rowByRow)
        }
        // COMMIT ran: the rest is durable; completions of unknown rows changed nothing.
        if commit, case .failed(let error)? = results.last { throw .postgres(error) }
        applied.committed = commit
        return (applied, false)
    }

    /// One statement per row: each request row (its findings in its intent), each completion,
    /// each ledger change.
    /// `receivedAt`: the received time of a request's intent when the writer knows it, which
    /// narrows its completion's lookup to that day's partition.
    static func rowByRow(_ operations: [(index: Int, work: AuditOperation.Work)], receivedAt: (String) -> Int64? = { _ in nil }) -> [Statement] {
        operations.flatMap { index, work -> [Statement] in
            switch work {
            case .insert(let row, let findings, let ledger):
                var out = [Statement(sql: AuditPostgresLogSQL.insertIntentSQL, parameters: AuditPostgresLogSQL.intent(of: row, findings: findings).map(PostgresConnection.text),
                                     owner: .one(index, completes: nil))]
                if let (requestId, values) = AuditPostgresLogSQL.outcome(of: row) {
                    out.append(Statement(sql: AuditPostgresLogSQL.insertRecordOutcomeSQL, parameters: values.map(PostgresConnection.text),
                                         owner: .one(index, completes: requestId)))
                }
                return out + ledger.map { pipelined($0, index) }
            case .finish(let requestId, let values, let ledger):
                // The ledger's statements take effect only when the row exists (see
                // ``ActivityLedgerSQL/statements(for:requestId:)``): a completion of an unknown row,
                // which fails here without an abort, leaves none of them.
                let time = receivedAt(requestId)
                return [Statement(sql: time == nil ? AuditPostgresLogSQL.insertOutcomeSQL : AuditPostgresLogSQL.insertOutcomeAtSQL,
                                  parameters: (values + (time.map { [SQLiteValue.integer($0)] } ?? [])).map(PostgresConnection.text),
                                  owner: .one(index, completes: requestId))]
                    + ledger.map { pipelined($0, index) }
            case .statement(let statement), .rollup(let statement):
                return [pipelined(statement, index)]
            case .prune, .background:
                return []
            }
        }
    }

    /// A named statement as pipeline SQL and parameters (its `?` marks numbered once per SQL).
    static func pipelined(_ statement: AuditStatement, _ index: Int) -> Statement {
        Statement(sql: numbered(statement.sql), parameters: statement.values.map(PostgresConnection.text),
                  owner: .one(index, completes: statement.requestId))
    }

    /// `sql` as the log's writer runs it (``AuditPostgresLogSQL/adapted(_:)``) with its marks
    /// numbered, cached: the ledger's few fixed statements are numbered once.
    private static func numbered(_ sql: String) -> String {
        if let cached = numberedSQL.withLock({ $0[sql] }) { return cached }
        let numbered = PostgresConnection.numberingMarks(AuditPostgresLogSQL.adapted(sql))
        numberedSQL.withLock { $0[sql] = numbered }
        return numbered
    }

    private static let numberedSQL = Mutex<[String: String]>([:])
}
