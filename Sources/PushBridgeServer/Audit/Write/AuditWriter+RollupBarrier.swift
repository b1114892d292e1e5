import Dispatch

/// The SQLite writer's carry seen from outside the batches (``AuditRollupBarrier``): written
/// alone only once the writer stayed idle, or at once for a reader in this process that must
/// read exact rollups. Callers are never held for it.
extension AuditWriter {
    /// The writer found nothing to do: sleeps until woken. With counters carried (SQLite), at
    /// most ``AuditStoreConfiguration/sqliteRollupIdle`` (and no later than the carry's
    /// ``AuditStoreConfiguration/sqliteRollupInterval``): if nothing woke it by then, it writes
    /// the carry alone (``flushCarriedRollups(_:idle:)``). Under load a batch comes first and
    /// writes or carries it on, so no transaction is added per batch.
    func idleWait(_ engine: any AuditWriteEngine) {
        guard engine.commitsInOrder, rollupCarry.active, !configuration.holdsCarriedRollups else {
            wake.wait()
            return
        }
        let left = (configuration.sqliteRollupInterval ?? .zero) - (ContinuousClock.now - rollupCarry.since)
        let wait = max(.zero, min(configuration.sqliteRollupIdle, left))
        let (seconds, attoseconds) = wait.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard wake.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut else { return }
        flushCarriedRollups(engine, idle: true)
    }

    /// For a reader in this process about to read the rollups: returns once the counters the
    /// writer carried when called are committed (at once when it carries none), waking an idle
    /// writer to write them. Any thread but the writer's.
    func writeCarriedRollupsFirst() {
        rollupBarrier.writeCarriedFirst {
            let wakeWriter = state.withLock { state -> Bool in
                guard state.sleeping else { return false }
                state.sleeping = false
                return true
            }
            if wakeWriter { wake.signal() }
        }
    }
}
