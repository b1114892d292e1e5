import Foundation

/// The answer to the callers of an SQLite batch whose rollup counters were carried
/// (``AuditRollupCarry``). While the writer writes a later batch of operations, at once: that
/// batch's callers are answered after these, so these callers are not the last of a busy
/// moment, and a reader may see the rollups lag until the carry is written (at most
/// ``AuditStoreConfiguration/sqliteRollupInterval``). Otherwise only once a later transaction
/// committed (the writer, with nothing queued, writes the carry alone for it). So the callers
/// of the last batch of a busy moment are answered with every counter in the rollups, and
/// sequential callers never wait (they carry nothing).
extension AuditWriter {
    /// How long an acknowledgement waits for a later commit before it answers anyway (the
    /// writer stuck on a locked file: the rollups then lag, the callers are not held).
    static let laterCommitPatience: TimeInterval = 1

    /// Before `batch`'s callers are answered (on the syncer's thread): when its counters were
    /// carried and the writer is not writing a later batch of operations, waits until a later
    /// transaction committed, asking the writer to write the carry alone if it has nothing else
    /// to do. Never called on the thread that writes.
    func awaitLaterCommit(after mark: Int) {
        guard commitProgress.current <= mark else { return }
        let (wait, wakeWriter) = state.withLock { state -> (Bool, Bool) in
            if state.writingOperations { return (false, false) }
            state.carryFlushAfter = max(state.carryFlushAfter ?? mark, mark)
            guard state.sleeping else { return (true, false) }
            state.sleeping = false
            return (true, true)
        }
        if wakeWriter { wake.signal() }
        guard wait else { return }
        _ = commitProgress.wait(past: mark, until: Date(timeIntervalSinceNow: Self.laterCommitPatience))
    }

    /// Whether a caller waits for a later commit that has not happened yet (SQLite): only then
    /// does a writer with nothing queued write its carry alone.
    var carryFlushWanted: Bool {
        guard let mark = state.withLock({ $0.carryFlushAfter }) else { return false }
        return commitProgress.current <= mark
    }
}
