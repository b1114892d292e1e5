/// The multi-row plan of a batch: its request rows (their findings inline) in one `INSERT`,
/// its completions in one `INSERT … SELECT` (``AuditMultiRow``), so the server runs a few
/// statements per batch instead of two or three per request.
extension AuditPipeline {
    /// Whether `work` holds two request rows or two completions: only then does a multi-row
    /// statement replace more than one. A batch of one request's row (its findings are in its
    /// intent), or of one completion, goes one statement per row (prepared, no arrays for the
    /// server to parse), as a lone caller's batches always are.
    static func hasRowsToGroup(_ work: [AuditOperation.Work]) -> Bool {
        var inserts = 0, finishes = 0
        for item in work {
            switch item {
            case .insert: inserts += 1
            case .finish: finishes += 1
            case .statement, .prune, .background, .rollup: break
            }
        }
        return inserts > 1 || finishes > 1
    }

    /// The batch's statements, in this order: request rows with their findings, the request rows'
    /// ledger changes, completions, the completions' ledger changes, named statements (each
    /// as it is). Operations of one batch were submitted concurrently (each caller awaits its
    /// own commit), so no order among them is promised; each ledger change still runs after
    /// its own row's statement, and takes effect only when that row exists. Nil when the batch
    /// completes one request twice (one `UPDATE … FROM` changes a row once) or holds work a
    /// pipeline never carries.
    /// `receivedAt`: as in ``rowByRow(_:receivedAt:)``; completions whose intent's time is known
    /// go in a statement of their own that looks each up in its day's partition only.
    static func multiRow(_ operations: [(index: Int, work: AuditOperation.Work)], form: AuditMultiRow.Form,
                         receivedAt: (String) -> Int64? = { _ in nil }) -> [Statement]? {
        var rows: [[SQLiteValue]] = [], inserted: [Int] = []
        var completions: [[SQLiteValue]] = [], completed: [(index: Int, requestId: String)] = []
        var completionsAt: [[SQLiteValue]] = [], completedAt: [(index: Int, requestId: String)] = []
        var outcomes: [[SQLiteValue]] = [], recorded: [(index: Int, requestId: String)] = []
        var insertLedger: [Statement] = [], finishLedger: [Statement] = [], named: [Statement] = []
        for (index, work) in operations {
            switch work {
            case .insert(let row, let rowFindings, let ledger):
                rows.append(AuditPostgresLogSQL.intent(of: row, findings: rowFindings))
                inserted.append(index)
                if let (requestId, values) = AuditPostgresLogSQL.outcome(of: row) {
                    outcomes.append(values)
                    recorded.append((index, requestId))
                }
                insertLedger += ledger.map { pipelined($0, index) }
            case .finish(let requestId, let values, let ledger):
                if let time = receivedAt(requestId) {
                    completionsAt.append(values + [.integer(time)])
                    completedAt.append((index, requestId))
                } else {
                    completions.append(values)
                    completed.append((index, requestId))
                }
                finishLedger += ledger.map { pipelined($0, index) }
            case .statement(let statement) where statement.rollupCondition != nil:
                // It reads its row before and after its change: not in a pipeline.
                return nil
            case .statement(let statement), .rollup(let statement):
                named.append(pipelined(statement, index))
            case .prune, .background:
                return nil
            }
        }
        let ids = completed.map(\.requestId) + completedAt.map(\.requestId) + recorded.map(\.requestId)
        guard Set(ids).count == ids.count else { return nil }
        var plan: [Statement] = []
        for range in AuditMultiRow.ranges(rows.count, form: form) {
            let (sql, parameters) = AuditMultiRow.insert(rows[range], into: AuditMultiRow.intents, form: form)
            plan.append(Statement(sql: sql, parameters: parameters, owner: .many(Array(inserted[range]))))
        }
        for range in AuditMultiRow.ranges(outcomes.count, form: form) {
            let (sql, parameters) = AuditMultiRow.insert(outcomes[range], into: AuditMultiRow.outcomes, form: form)
            plan.append(Statement(sql: sql, parameters: parameters, owner: .many(Array(recorded[range].map(\.index)))))
        }
        plan += insertLedger
        for range in AuditMultiRow.ranges(completions.count, form: form) {
            let (sql, parameters) = AuditMultiRow.complete(completions[range], form: form)
            plan.append(Statement(sql: sql, parameters: parameters, owner: .completions(Array(completed[range]))))
        }
        for range in AuditMultiRow.ranges(completionsAt.count, form: form) {
            let (sql, parameters) = AuditMultiRow.complete(completionsAt[range], form: form, knownTime: true)
            plan.append(Statement(sql: sql, parameters: parameters, owner: .completions(Array(completedAt[range]))))
        }
        return plan + finishLedger + named
    }
}

extension AuditPipeline.Statement {
    /// A statement whose parameters are all text (nil for NULL).
    init(sql: String, parameters: [String?], owner: AuditPipeline.Owner) {
        self.init(sql: sql, parameters: parameters.map(PostgresParameter.init), owner: owner)
    }
}
