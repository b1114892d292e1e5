import Dispatch
import Foundation
import Synchronization

/// Pipelined group commit: makes the writer's committed batches durable with `fdatasync` of
/// the WAL on its own thread, and only then acknowledges them, while the writer already runs
/// the next transaction. The writer's connection uses `synchronous=NORMAL`, so its `COMMIT`
/// writes the WAL frames without syncing them.
///
/// Why an acknowledged operation is exactly as durable as under `synchronous=FULL`:
///
/// 1. A caller is resumed with success only by ``AuditWriter/acknowledge(_:durabilityError:)``,
///    called here (on the syncer thread, or on the writer's own thread when nothing else is
///    waiting, see ``synchronizeHereIfIdle(_:)``) after an `fdatasync` that *began after* its
///    batch's `COMMIT` returned. By then
///    SQLite had `pwrite`n every frame of the transaction, ending with its commit frame, to
///    the `-wal` file. `fdatasync` (the call SQLite itself makes under FULL) flushes every dirty
///    page of the inode, whichever descriptor wrote it, plus the file size, and flushes the
///    device cache; so the whole transaction, and every earlier one in the WAL, is on disk.
/// 2. The WAL header those frames hang from is durable too: SQLite writes and syncs a new
///    header before the first frame of every WAL generation even under NORMAL (its
///    checkpoint sync flags stay on; only the per-commit sync is dropped), and that first
///    sync of a newly created WAL also syncs the directory (the writer also syncs it, best
///    effort, when it opens the WAL for this class).
/// 3. Recovery after a crash replays the WAL from its header up to the last commit frame whose
///    salts and cumulative checksum are valid. Frames of later batches that were being written
///    while (or after) we synced may be torn or missing; they fail the checksum or have no
///    commit frame and are dropped — the same as a crash in the middle of a FULL commit. They
///    belong to batches no caller was told about.
/// 4. Frames are only overwritten when SQLite restarts the WAL, which it does only once a
///    checkpoint has copied every frame into the database file and synced that file
///    (`nBackfill == mxFrame`, and the database is synced whenever a checkpoint reaches the
///    end of the WAL); checkpoints sync the WAL before copying and the database after, under
///    NORMAL as under FULL (SQLite keeps its checkpoint sync flags, `walSyncFlags >> 2`). So no acknowledged transaction lives only in frames that are
///    overwritten. Truncation (`journal_size_limit`, `wal_checkpoint(TRUNCATE)`) happens at the
///    same point and keeps the inode, so this descriptor stays the WAL's; SQLite deletes the
///    WAL only when the last connection closes, and the writer stops this syncer first.
/// 5. If `fdatasync` fails, the kernel may already have dropped the unsynced pages, so a retry
///    proves nothing: that batch's callers and every later one fail with the I/O error (the
///    store is then broken, as a FULL connection whose fsync fails is).
///
/// What does differ: another connection (a report, `audit list`) can see a batch up to one
/// `fdatasync` before its callers are told; after a power cut such a row may be gone, but no
/// request was answered on the strength of it. A `kill -9` loses nothing either way (written
/// pages live in the kernel's cache).
final class AuditSyncer: Sendable {
    private struct State {
        var pending: [AuditCommittedBatch] = []
        var stopping = false
        /// A sync (on either thread) is between taking its batches and acknowledging them.
        var syncing = false
        /// A sync has taken its batches and its `fdatasync` has not returned yet.
        var unsynced = false
        var failure: AuditError?
    }

    private let file: SQLiteFileSync
    private let beforeSync: (@Sendable () throws -> Void)?
    private let acknowledge: @Sendable (AuditCommittedBatch, AuditError?) -> Void
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let room: DispatchSemaphore
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the syncer thread for the WAL `file`. `acknowledge` resumes a batch's callers
    /// (with the sync's error, if any); it runs on the syncer thread. `beforeSync` is a test
    /// seam (see ``AuditStoreConfiguration/beforeWALSync``).
    init(file: SQLiteFileSync, maxPendingBatches: Int, beforeSync: (@Sendable () throws -> Void)? = nil,
         acknowledge: @escaping @Sendable (AuditCommittedBatch, AuditError?) -> Void) {
        self.file = file
        self.beforeSync = beforeSync
        self.acknowledge = acknowledge
        self.room = DispatchSemaphore(value: max(1, maxPendingBatches))
        let thread = Thread(named: "pb-audit-syncer") { [self] in run() }
        thread.start()
    }

    /// Blocks while `maxPendingBatches` committed batches are waiting for a sync to *begin*.
    /// The writer calls it before it takes its next batch: a batch committed now would only
    /// be synced by the same `fdatasync` as the one already waiting, so the operations
    /// arriving meanwhile are better gathered into one bigger transaction (fewer pages
    /// written per row) than committed in many small ones.
    func waitForRoom() {
        room.wait()
        room.signal()
    }

    /// Hands over a batch whose `COMMIT` has returned.
    func submit(_ batch: AuditCommittedBatch) {
        room.wait()
        state.withLock { $0.pending.append(batch) }
        wake.signal()
    }

    /// Syncs and acknowledges everything submitted, then ends the thread. Called once, by the
    /// writer, before it closes its connection.
    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
        finished.wait()
    }

    /// Whether no committed batch waits for or is inside a sync: a batch committed now would be
    /// synced at once by ``synchronizeHereIfIdle(_:)``, and ``submit(_:)`` would not block.
    var isIdle: Bool { state.withLock { $0.pending.isEmpty && !$0.syncing } }

    /// Whether a committed batch waits for its `fdatasync` or is inside one; false while the
    /// callers of a synced one are being answered (a caller answered and back at once finds
    /// nothing outstanding).
    var hasUnsyncedCommits: Bool { state.withLock { !$0.pending.isEmpty || $0.unsynced } }

    /// Syncs and acknowledges `batch` on the calling (writer) thread, if no earlier batch is
    /// waiting for or inside a sync; returns false, doing nothing, otherwise. The writer calls
    /// it when no operation is waiting for it either: with nothing to overlap, a hand-off to
    /// the syncer thread would only add that thread's wake-up to a lone caller's latency.
    func synchronizeHereIfIdle(_ batch: AuditCommittedBatch) -> Bool {
        let idle = state.withLock { state -> Bool in
            guard state.pending.isEmpty, !state.syncing else { return false }
            state.syncing = true
            state.unsynced = true
            return true
        }
        guard idle else { return false }
        let failure = synchronize()
        state.withLock { $0.unsynced = false }
        acknowledge(batch, failure)
        state.withLock { $0.syncing = false }
        return true
    }

    private func run() {
        while true {
            wake.wait()
            // Everything taken here had its COMMIT return before this sync begins.
            let (batches, stopping) = state.withLock { state in
                let taken = state.pending
                state.pending = []
                if !taken.isEmpty { state.syncing = true; state.unsynced = true }
                return (taken, state.stopping)
            }
            for _ in batches { room.signal() }
            if !batches.isEmpty {
                let failure = synchronize()
                state.withLock { $0.unsynced = false }
                for batch in batches { acknowledge(batch, failure) }
                state.withLock { $0.syncing = false }
            }
            if stopping && state.withLock({ $0.pending.isEmpty }) { break }
        }
        finished.signal()
    }

    /// One `fdatasync` of the WAL; nil when it succeeded. After a failure every later call
    /// fails with the same error without trying again (see point 5 above).
    private func synchronize() -> AuditError? {
        if let earlier = state.withLock({ $0.failure }) { return earlier }
        do {
            try beforeSync?()
            try file.synchronize()
            return nil
        } catch {
            let failure = AuditError.wrap(error)
            state.withLock { $0.failure = failure }
            return failure
        }
    }
}
