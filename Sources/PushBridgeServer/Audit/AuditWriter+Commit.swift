extension AuditWriter {
    /// Writes `batch` in one transaction, then resumes every caller: with success only once
    /// the commit (and its fsync, under `synchronous=FULL`) is done.
    ///
    /// An operation that fails on its own (a duplicate id, a finish for an unknown row) fails
    /// alone: SQLite undoes just that statement and the rest commit. An error that ends the
    /// transaction (disk full, I/O) fails the whole batch.
    func write(_ batch: [AuditOperation], with statements: AuditStatements) {
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
        let end = ContinuousClock.now
        let oldest = batch.map(\.submitted).min() ?? start
        let sample = AuditCommitSample(batchSize: batch.count, transactionDuration: end - start, maxLatency: end - oldest)
        state.withLock { state in
            if batchError == nil {
                state.statistics.record(sample, committed: batch.count - failures.count)
            } else {
                state.statistics.failedTransactions += 1
            }
        }
        configuration.onCommit?(sample)
        for (index, operation) in batch.enumerated() {
            if let error = batchError ?? failures[index] {
                operation.continuation.resume(throwing: error)
            } else {
                operation.continuation.resume()
            }
        }
    }
}
