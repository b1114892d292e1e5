extension AuditWriter {
    /// Runs `batch` in one transaction and returns it for acknowledgement; resumes no one.
    ///
    /// An operation that fails on its own (a duplicate id, a finish for an unknown row) fails
    /// alone: SQLite undoes just that statement and the rest commit. An error that ends the
    /// transaction (disk full, I/O) fails the whole batch.
    func write(_ batch: [AuditOperation], with statements: AuditStatements) -> AuditCommittedBatch {
        let start = ContinuousClock.now
        var failures: [Int: AuditError] = [:]
        var batchError: AuditError?
        do {
            try statements.beginTransaction()
            for (index, operation) in batch.enumerated() {
                do {
                    try statements.apply(operation.work)
                } catch {
                    failures[index] = error
                    if !statements.database.isInTransaction { throw error }
                }
            }
            try statements.commitTransaction()
        } catch {
            batchError = AuditError.wrap(error)
            if statements.database.isInTransaction { try? statements.database.execute("ROLLBACK TRANSACTION") }
        }
        return AuditCommittedBatch(operations: batch, failures: failures, batchError: batchError, began: start, committed: .now)
    }

    /// Resumes every caller of `batch`: with success only once its commit is on disk, which is
    /// when this is called (after `COMMIT` under `synchronous=FULL`, or after the
    /// ``AuditSyncer``'s `fdatasync` of the WAL). `durabilityError` fails the operations that
    /// committed but could not be made durable.
    func acknowledge(_ batch: AuditCommittedBatch, durabilityError: AuditError?) {
        let end = ContinuousClock.now
        let oldest = batch.operations.map(\.submitted).min() ?? batch.began
        let sample = AuditCommitSample(batchSize: batch.operations.count, transactionDuration: end - batch.began,
                                       maxLatency: end - oldest, writeDuration: batch.committed - batch.began)
        let failedWhole = batch.batchError ?? durabilityError
        state.withLock { state in
            if failedWhole == nil {
                state.statistics.record(sample, committed: batch.operations.count - batch.failures.count)
            } else {
                state.statistics.failedTransactions += 1
            }
        }
        configuration.onCommit?(sample)
        for (index, operation) in batch.operations.enumerated() {
            if let error = failedWhole ?? batch.failures[index] {
                operation.reply(.failure(error))
            } else {
                operation.reply(.success(()))
            }
        }
    }
}
