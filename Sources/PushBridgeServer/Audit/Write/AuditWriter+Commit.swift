extension AuditWriter {
    /// Runs `batch` in one transaction on `engine` and returns it for acknowledgement; resumes
    /// no one. An operation that fails alone leaves the others to commit; one that aborts the
    /// transaction (PostgreSQL) has it rolled back and the batch written again without it; an
    /// error that ends the transaction (disk full, I/O, the connection lost) fails the batch.
    func write(_ batch: [AuditOperation], on engine: any AuditWriteEngine) -> AuditCommittedBatch {
        let start = ContinuousClock.now
        var failures: [Int: AuditError] = [:]
        var batchError: AuditError?
        var intents: [Int: (String, AuditRollupRow.Intent)] = [:]
        settleRollupRecount(engine)
        // Counters earlier batches carried (``AuditRollupCarry``): each attempt
        // starts from them, and a failed batch leaves them as they were.
        let carried = rollupCarry.active ? rollupFold : nil
        var rollupsFrom: Int64?
        do throws(AuditError) {
            try engine.begin()
            while true {
                // One array for the operations still to write and, after them, the rollups'
                // upserts (usually four: minutes and hours, requests and findings), sized once.
                var operations: [(index: Int, work: AuditOperation.Work)] = []
                operations.reserveCapacity(batch.count + 4)
                for index in batch.indices where failures[index] == nil { operations.append((index: index, work: batch[index].work)) }
                // The rollups' upserts follow the operations, counted from them: an operation
                // that fails alone is written again without them, so none counts a failed one.
                let rollups = try rollupWork(operations, of: batch, on: engine, carried: carried)
                intents = rollups.intents
                let carries: Bool
                var applied: AuditApplied
                if engine.commitsInOrder {
                    // SQLite: the operations first, then whether what queued meanwhile lets the
                    // counters be carried (``mayCarryRollups(_:on:)``), then the upserts or mark.
                    applied = try engine.apply(operations)
                    // Sized once for the usual four upserts, a mark and the marks' settling.
                    var statements: [(index: Int, work: AuditOperation.Work)] = []
                    statements.reserveCapacity(6)
                    carries = appendRollupStatements(from: rollups.from, batch: batch, on: engine, to: &statements)
                    if !statements.isEmpty { applied.failures.merge(try engine.apply(statements).failures) { $1 } }
                    rollupFold.recycle(&statements)
                } else {
                    carries = appendRollupStatements(from: rollups.from, batch: batch, on: engine, to: &operations)
                    applied = try engine.apply(operations)
                    // The upserts' value arrays go back to the fold for the next batch's.
                    rollupFold.recycle(&operations)
                }
                if let failure = applied.failures.first(where: { $0.key >= batch.count }) { throw failure.value }
                let failedAlone = !applied.committed && applied.failures.contains { failures[$0.key] == nil && rollups.counted.contains($0.key) }
                failures.merge(applied.failures) { $1 }
                guard applied.aborted || failedAlone else {
                    if !applied.committed { try engine.commit() }
                    rollupsFrom = noteRollups(carried: carries, from: rollups.from, on: engine)
                    break
                }
                for index in applied.retry { failures[index] = nil }
                engine.rollBack()
                try engine.begin()
            }
            holdIntents(batch, intents, failures: failures)
        } catch {
            batchError = error
            engine.rollBack()
            if let carried { rollupFold = carried }
        }
        engine.endBatch()
        let sent = engine.statementsSent
        if sent > 0 { state.withLock { $0.statistics.statementsSent = sent } }
        return AuditCommittedBatch(operations: batch, failures: failures, batchError: batchError, began: start, committed: .now, rollupsFrom: rollupsFrom)
    }

    /// Resumes every caller of `batch`: with success only once its commit is durable, which is
    /// when this is called (after `COMMIT` on PostgreSQL and under SQLite's `synchronous=FULL`,
    /// or after the ``AuditSyncer``'s `fdatasync` of the WAL). `durabilityError` fails the operations that
    /// committed but could not be made durable.
    func acknowledge(_ batch: AuditCommittedBatch, durabilityError: AuditError?) {
        let end = ContinuousClock.now
        let oldest = batch.operations.lazy.map(\.submitted).min() ?? batch.began
        let sample = AuditCommitSample(batchSize: batch.operations.count, transactionDuration: end - batch.began,
                                       maxLatency: end - oldest, writeDuration: batch.committed - batch.began)
        let failedWhole = batch.batchError ?? durabilityError
        if failedWhole != nil, let from = batch.rollupsFrom { oweRollupRecount(from: from) }
        // A transaction of carried rollups alone (``flushCarriedRollups(_:)``) has no caller.
        guard !batch.operations.isEmpty else { return }
        // A batch of several says there is load: the loops queue again until a batch is alone.
        let quick = loopCommitLimit.map { failedWhole == nil && end - batch.began < $0 && batch.operations.count == 1 } ?? false
        state.withLock { state in
            state.lastWriteQuick = quick
            if failedWhole == nil {
                state.statistics.record(sample, committed: batch.operations.count - batch.failures.count)
            } else {
                state.statistics.failedTransactions += 1
            }
        }
        configuration.onCommit?(sample)
        // The callers' tasks resumed here reach each loop together: one wake per loop per batch.
        EventLoop.gatheringJobs {
            for (index, operation) in batch.operations.enumerated() {
                if let error = failedWhole ?? batch.failures[index] {
                    operation.reply(.failure(error))
                } else {
                    operation.reply(.success(()))
                }
            }
        }
    }
}
