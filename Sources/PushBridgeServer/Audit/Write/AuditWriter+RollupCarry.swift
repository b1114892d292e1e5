import Foundation

/// When the writer writes the rollup counters it folds (``AuditRollupCarry``): with each batch,
/// or carried on while the PostgreSQL writer has a commit out.
extension AuditWriter {
    /// Whether `batch` may leave its counters in the fold: the engine carries (PostgreSQL with overlapped commits) and has a commit out whose
    /// row locks the upserts would wait on, the carry is younger than the interval and of this
    /// minute, no recount is owed, and the batch is only request rows, completions and named
    /// statements (pruning and background work write the counters first).
    func mayCarryRollups(_ batch: [AuditOperation], on engine: any AuditWriteEngine) -> Bool {
        // A crashed instance's counters are recounted by its own name (its marks): a fold
        // holding another instance's counter rows (a completion of an intent that instance
        // wrote) is written with this batch, never carried, so no recount can miss them.
        if engine.carriesRollups, !rollupFold.holdsOnly(instance: configuration.instanceName) { return false }
        if configuration.holdsCarriedRollups { return engine.carriesRollups }
        guard let interval = configuration.postgresRollupInterval, engine.carriesRollups, engine.commitOutstanding else { return false }
        if rollupCarry.active {
            guard ContinuousClock.now - rollupCarry.since < interval, AuditClock.nowMilliseconds() / 60_000 == rollupCarry.minute else { return false }
        }
        guard state.withLock({ $0.rollupRecountFrom == nil }) else { return false }
        return AuditPipeline.carries(batch.map(\.work), statements: true)
    }

    /// The statements that follow `batch`'s operations for the rollups, appended to
    /// `operations` (numbered on from `batch.count`), and whether it carries: its mark when it
    /// carries its counters on, else every counter row the fold holds (the carried ones and its
    /// own), once each, and the deletion of the marks they settle.
    func appendRollupStatements(from: Int64, batch: [AuditOperation], on engine: any AuditWriteEngine,
                                to operations: inout [(index: Int, work: AuditOperation.Work)]) -> Bool {
        var next = batch.count
        func append(_ statement: AuditStatement) {
            operations.append((index: next, work: .rollup(statement)))
            next += 1
        }
        if mayCarryRollups(batch, on: engine) {
            guard from != .max else { return true }
            append(AuditStatement(name: "mark carried rollups", sql: AuditRollupMarkSchema.insertSQL,
                                  values: [.text(configuration.instanceName), .integer(from)], requestId: nil))
            return true
        }
        rollupFold.forEachStatement { append($0) }
        if rollupCarry.active || rollupCarry.marksLeft {
            append(AuditStatement(name: "settle carried rollups", sql: AuditRollupMarkSchema.deleteSQL,
                                  values: [.text(configuration.instanceName)], requestId: nil))
        }
        return false
    }

    /// After `batch`'s statements were sent and its commit too: the carry as it now stands.
    /// Returns the earliest received time the batch's commit settles or leaves carried (for
    /// ``AuditCommittedBatch/rollupsFrom``), nil when it carried nothing and wrote no carry.
    func noteRollups(carried: Bool, from: Int64, on engine: any AuditWriteEngine) -> Int64? {
        if carried {
            if !rollupCarry.active {
                rollupCarry.active = true
                rollupCarry.since = .now
                rollupCarry.minute = AuditClock.nowMilliseconds() / 60_000
            }
            rollupCarry.from = min(rollupCarry.from, from)
            state.withLock { $0.statistics.carriedRollups += 1 }
            return rollupCarry.from == .max ? nil : rollupCarry.from
        }
        let settled = rollupCarry.active && rollupCarry.from != .max ? rollupCarry.from : nil
        let wasActive = rollupCarry.active
        rollupCarry.active = false
        rollupCarry.from = .max
        rollupCarry.marksLeft = (wasActive || rollupCarry.marksLeft) && engine.commitOutstanding
        return settled
    }

    /// Writes what the fold carries in a transaction of its own, when the writer has nothing
    /// else to do (its queue empty) or is closing: the counters of the last busy moment are in
    /// the rollups at once. Takes the engine as a batch does (``State/committing``), unless a
    /// loop holds it. Returns whether it wrote.
    @discardableResult
    func flushCarriedRollups(_ engine: any AuditWriteEngine) -> Bool {
        guard rollupCarry.active || rollupCarry.marksLeft, !configuration.holdsCarriedRollups else { return false }
        let taken = state.withLock { state -> Bool in
            guard !state.committing else { return false }
            state.committing = true
            state.sleeping = false
            return true
        }
        guard taken else { return false }
        // The carried batches' commits settled first: the marks they insert are then all seen
        // (and deleted) by this transaction, and it commits alone.
        engine.settleCommits()
        let committed = write([], on: engine)
        if committed.batchError != nil {
            // Not tried again at once (the server may be gone): recounted before a later batch.
            if rollupCarry.active { oweRollupRecount(from: rollupCarry.from) }
            rollupCarry = AuditRollupCarry()
            rollupFold.reset()
        }
        if !engine.handOff(committed, alone: true) { acknowledge(committed, durabilityError: nil) }
        batchDone()
        return true
    }

    /// When a commit of a batch whose counters were carried (or that wrote carried ones)
    /// failed: once every commit out is settled, this instance's counter rows are recounted from
    /// the log from the earliest time concerned (in a transaction of their own) and the carry
    /// is dropped. Until that succeeds nothing is carried, and each batch writes its own.
    func settleRollupRecount(_ engine: any AuditWriteEngine) {
        guard engine.carriesRollups, state.withLock({ $0.rollupRecountFrom != nil }) else { return }
        engine.settleCommits()
        guard let owed = state.withLock({ $0.rollupRecountFrom }) else { return }
        let from = min(owed, rollupCarry.from)
        rollupCarry = AuditRollupCarry()
        rollupFold.reset()
        do throws(AuditError) {
            try engine.recountRollups(from: from)
            state.withLock { $0.rollupRecountFrom = nil }
        } catch {
            state.withLock { $0.rollupRecountFrom = from }
        }
    }

    /// Notes a batch that failed as a whole after its rollups were carried or written from the
    /// carry (`from`): a recount is owed (``settleRollupRecount(_:)``). Any thread.
    func oweRollupRecount(from: Int64) {
        state.withLock { $0.rollupRecountFrom = min($0.rollupRecountFrom ?? .max, from) }
    }
}
