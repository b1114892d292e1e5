/// The writer's fold of each batch into the per-minute rollups (``AuditRollupFold``): the
/// counters a batch touches become one upsert each, applied after its operations in the same
/// transaction (and on PostgreSQL in the same pipeline), on both engines alike.
extension AuditWriter {
    /// The rollup upserts for `operations`: an intent counts as `pending` (or as its outcome,
    /// written with `record`), a completion moves its request from `pending` (or whatever its
    /// row says, for a row the writer does not hold: a scheduled start's later completion) to
    /// its outcome. A completion of no known row is not counted (it fails as unknown). Also
    /// returns the pending intents by position, for ``holdIntents(_:_:failures:)``, and the
    /// positions counted (an operation counted that then fails alone has the batch written again).
    /// What `batch`'s operations carry (``AuditOperation/counts``) is taken as it is, not read
    /// back from the rows' text; the writer's one fold (``rollupFold``) is reset and reused, or,
    /// with `carried` (counters earlier batches left unwritten, ``AuditRollupCarry``), starts
    /// from those. `from`: the earliest received time of a row the batch counted (`Int64.max`
    /// for none). The upserts themselves are ``appendRollupStatements(from:batch:on:to:)``'s.
    func rollupWork(_ operations: [(index: Int, work: AuditOperation.Work)], of batch: [AuditOperation], on engine: any AuditWriteEngine,
                    carried: AuditRollupFold? = nil) throws(AuditError)
        -> (intents: [Int: (String, AuditRollupRow.Intent)], counted: Set<Int>, from: Int64) {
        if let carried { rollupFold = carried } else { rollupFold.reset() }
        var from = Int64.max
        var counted = Set<Int>()
        var intents: [Int: (String, AuditRollupRow.Intent)] = [:]
        var current: [String: AuditRollupRow] = [:]
        var missing: [String] = []
        for (_, work) in operations {
            if case .finish(let requestId, _, _) = work, rollupIntents[requestId] == nil { missing.append(requestId) }
        }
        if !missing.isEmpty, let reads = engine.reads {
            do { current = try AuditRollupRows.lookUp(missing, in: reads) } catch { throw AuditError.wrap(error) }
        }
        for (index, work) in operations {
            let counts = index < batch.count ? batch[index].counts : nil
            switch work {
            case .insert(let values, let findings, _):
                let row = AuditRollupRow(row: values, counts: counts)
                if row.outcome == AuditOutcome.pending.rawValue, let id = values.first?.textValue { intents[index] = (id, row.intent) }
                counted.insert(index)
                from = min(from, row.intent.receivedAt)
                rollupFold.add(row)
                rollupFold.addFindings(findings, appName: row.intent.appName)
            case .finish(let requestId, let values, _):
                guard let before = current[requestId] ?? rollupIntents[requestId].map({ AuditRollupRow(intent: $0, outcome: AuditOutcome.pending.rawValue) })
                else { continue }
                let after = before.completed(by: values, figures: counts?.retry)
                counted.insert(index)
                from = min(from, before.intent.receivedAt)
                rollupFold.add(before, sign: -1)
                rollupFold.add(after)
                current[requestId] = after
            case .statement, .prune, .background, .rollup:
                break
            }
        }
        return (intents, counted, from)
    }

    /// After a batch committed: its pending intents are held, its completed ones released.
    func holdIntents(_ batch: [AuditOperation], _ intents: [Int: (String, AuditRollupRow.Intent)], failures: [Int: AuditError]) {
        for (index, operation) in batch.enumerated() where failures[index] == nil {
            if let (id, intent) = intents[index] { rollupIntents.hold(id, intent) }
            if case .finish(let requestId, _, _) = operation.work { rollupIntents.release(requestId) }
        }
    }
}
