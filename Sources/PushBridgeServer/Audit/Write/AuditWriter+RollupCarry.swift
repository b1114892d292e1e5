import Foundation

/// When the writer writes the rollup counters it folds (``AuditRollupCarry``): with each batch,
/// or carried on while the PostgreSQL writer has a commit out, or while the SQLite writer is
/// busy (operations queued behind its batch, or a commit waiting for its sync).
extension AuditWriter {
    /// Whether `batch` may leave its counters in the fold: the engine carries and is busy
    /// (PostgreSQL with overlapped commits: a commit is out whose row locks the upserts would
    /// wait on; SQLite: operations are queued behind the batch or a commit waits for its sync,
    /// so a next batch follows soon, and no reader in the process waits for the carry), the
    /// carry is younger than the interval and of this
    /// minute, no recount is owed, and the batch is only request rows, completions and named
    /// statements (pruning and background work write the counters first). An empty batch (a
    /// transaction of carried counters alone) never carries.
    func mayCarryRollups(_ batch: [AuditOperation], on engine: any AuditWriteEngine) -> Bool {
        // PostgreSQL recounts a crashed instance's counters by its own name (its marks): a fold
        // holding another instance's counter rows (a completion of an intent that instance
        // wrote) is written with this batch, never carried, so no recount can miss them.
        // SQLite recounts every instance (``AuditRollupRows/recountAllMarked(_:)``).
        if !engine.commitsInOrder, !rollupFold.holdsOnly(instance: configuration.instanceName) { return false }
        if configuration.holdsCarriedRollups { return engine.carriesRollups && !batch.isEmpty }
        let interval = engine.commitsInOrder ? configuration.sqliteRollupInterval : configuration.postgresRollupInterval
        guard let interval, engine.carriesRollups, !batch.isEmpty else { return false }
        if engine.commitsInOrder {
            guard engine.commitOutstanding || state.withLock({ !($0.ready.isEmpty && $0.waiting.isEmpty) }) else { return false }
            // A reader in this process waits for the carry (``AuditRollupBarrier``): this batch writes it.
            guard !rollupBarrier.isWanted else { return false }
        } else {
            guard engine.commitOutstanding else { return false }
        }
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
            // Where commits are durable in order (SQLite), a mark is only needed when the carry
            // starts or reaches back before every mark committed so far: a batch's rows are in
            // the WAL after the transaction that committed that mark, so they are never durable
            // without it (a crash keeps a prefix of the commits), and the recount reads the log
            // from the earliest mark on. A failed commit takes its mark with it, and
            // ``noteRollups(carried:from:on:)`` records a mark only once its batch committed.
            if engine.commitsInOrder && from >= rollupCarry.marked { return true }
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
            // The same test as the mark's (``appendRollupStatements(from:batch:on:to:)``).
            if from < rollupCarry.marked { rollupCarry.marked = from }
            if engine.commitsInOrder && !configuration.holdsCarriedRollups { rollupBarrier.carryStarted() }
            state.withLock { $0.statistics.carriedRollups += 1 }
            return rollupCarry.from == .max ? nil : rollupCarry.from
        }
        let settled = rollupCarry.active && rollupCarry.from != .max ? rollupCarry.from : nil
        let wasActive = rollupCarry.active
        rollupCarry.active = false
        rollupCarry.from = .max
        rollupCarry.marked = .max
        rollupCarry.marksLeft = (wasActive || rollupCarry.marksLeft) && engine.commitOutstanding && !engine.commitsInOrder
        // Committed with this batch: readers waiting for the carry go on.
        if wasActive && engine.commitsInOrder { rollupBarrier.carryEnded() }
        return settled
    }

    /// Writes what the fold carries in a transaction of its own, when the writer has nothing
    /// else to do (its queue empty) or is closing: the counters of the last busy moment are in
    /// the rollups at once. On SQLite only when a reader in this process waits for them, the
    /// writer stayed idle (`idle`, ``idleWait(_:)``) or closes: a queue found empty for a moment
    /// between batches is the usual state under load. Takes the engine as a batch does
    /// (``State/committing``), unless a loop holds it. Returns whether it wrote.
    @discardableResult
    func flushCarriedRollups(_ engine: any AuditWriteEngine, idle: Bool = false) -> Bool {
        guard rollupCarry.active || rollupCarry.marksLeft, !configuration.holdsCarriedRollups else { return false }
        if engine.commitsInOrder, !idle, !rollupBarrier.isWanted, !state.withLock({ $0.closing }) { return false }
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
        writeCarriedRollups(engine)
        batchDone()
        return true
    }

    /// Writes what the fold carries, and deletes the marks, in a transaction of its own, by
    /// whoever holds the engine; a failure leaves a recount owed and the carry dropped.
    func writeCarriedRollups(_ engine: any AuditWriteEngine) {
        let committed = write([], on: engine)
        if committed.batchError != nil {
            // Not tried again at once (the server may be gone): recounted before a later batch.
            if rollupCarry.active { oweRollupRecount(from: rollupCarry.from) }
            rollupCarry = AuditRollupCarry()
            rollupFold.reset()
            // Given up (recounted later): readers waiting for it are not held.
            rollupBarrier.carryEnded()
        }
        if !engine.handOff(committed, alone: true) { acknowledge(committed, durabilityError: nil) }
    }

    /// Where commits are durable in order (SQLite), before `batch` when it will not carry
    /// (pruning, retention, background passes, a statement that moves its own rollup count):
    /// the carried counters are written first, in a transaction of their own, so that what
    /// it reads or recounts from the rollups already holds them. The writer holds the engine.
    func writeCarriedRollups(before batch: [AuditOperation], on engine: any AuditWriteEngine) {
        guard engine.commitsInOrder, rollupCarry.active, !configuration.holdsCarriedRollups,
              !AuditPipeline.carries(batch.map(\.work), statements: true) else { return }
        writeCarriedRollups(engine)
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
        rollupBarrier.carryEnded()
    }

    /// Notes a batch that failed as a whole after its rollups were carried or written from the
    /// carry (`from`): a recount is owed (``settleRollupRecount(_:)``). Any thread.
    func oweRollupRecount(from: Int64) {
        state.withLock { $0.rollupRecountFrom = min($0.rollupRecountFrom ?? .max, from) }
    }
}
