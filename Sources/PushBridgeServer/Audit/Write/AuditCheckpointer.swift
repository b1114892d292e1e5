import Dispatch
import Foundation
import Synchronization

/// Checkpoints the SQLite audit's WAL on a thread and a connection of its own, so that
/// copying the WAL into the database file (and syncing that file) never runs inside the
/// writer's `COMMIT`.
///
/// With SQLite's automatic checkpoint, the commit that takes the WAL past
/// ``AuditStoreConfiguration/walAutocheckpointPages`` copies every frame into the file
/// before it returns: about a second for 4,000 pages on a busy disk, during which no request
/// row commits. Retention's deletes fill the WAL faster, so this was the stall requests saw
/// while pruning. Here the writer's connection only reports its WAL size after each commit
/// (``SQLiteWALObserver``); past the threshold this thread runs `wal_checkpoint(PASSIVE)`,
/// which takes no write lock: the writer keeps committing (into the WAL, after the frames
/// being copied) while the copy runs, and SQLite restarts the WAL at the writer's next
/// transaction once every frame is in the file.
///
/// Durability is SQLite's own, as with the automatic checkpoint: the checkpoint syncs the WAL
/// before copying and the database file after (this connection uses `synchronous=FULL`), and
/// frames are only overwritten after a checkpoint reached the end of the WAL (see
/// ``AuditSyncer``).
final class AuditCheckpointer: Sendable {
    private struct State {
        var requested = false
        var stopping = false
        /// Checkpoints run and the last failure, for tests and diagnostics.
        var checkpoints = 0
        var lastFailure: String?
    }

    /// What the observer and the thread share.
    private final class Shared: Sendable {
        let state = Mutex(State())
        let wake = DispatchSemaphore(value: 0)
    }

    /// What the writer's connection reports to; install it with
    /// ``SQLiteDatabase/setWALObserver(_:)``.
    let observer: SQLiteWALObserver
    private let shared = Shared()
    private let finished = DispatchSemaphore(value: 0)
    private let beforeCheckpoint: (@Sendable () -> Void)?

    /// Opens its own connection to `path` and starts its thread; a checkpoint runs once a
    /// commit leaves at least `thresholdPages` frames in the WAL. `beforeCheckpoint` is a test
    /// seam (``AuditStoreConfiguration/beforeCheckpoint``).
    init(path: String, busyTimeout: Duration, thresholdPages: Int, beforeCheckpoint: (@Sendable () -> Void)? = nil) throws {
        let database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA busy_timeout = \(AuditDatabase.milliseconds(busyTimeout))")
        try database.execute("PRAGMA synchronous = FULL")
        let shared = self.shared
        let threshold = max(1, thresholdPages)
        self.beforeCheckpoint = beforeCheckpoint
        self.observer = SQLiteWALObserver { frames in
            guard frames >= threshold else { return }
            let signal = shared.state.withLock { state -> Bool in
                defer { state.requested = true }
                return !state.requested && !state.stopping
            }
            if signal { shared.wake.signal() }
        }
        let connection = Mutex<SQLiteDatabase?>(database)
        let thread = Thread(named: "pb-audit-ckpt") { [self] in
            guard let database = connection.withLock({ $0.take() }) else { return }
            run(database)
        }
        thread.start()
    }

    /// Checkpoints run so far.
    var checkpoints: Int { shared.state.withLock { $0.checkpoints } }

    /// Ends the thread (after a checkpoint in progress) and closes its connection. Remove
    /// the observer from the writer's connection first.
    func stop() {
        shared.state.withLock { $0.stopping = true }
        shared.wake.signal()
        finished.wait()
    }

    private func run(_ database: SQLiteDatabase) {
        while true {
            shared.wake.wait()
            if shared.state.withLock({ $0.stopping }) { break }
            beforeCheckpoint?()
            let failure: String?
            do {
                _ = try database.rows("PRAGMA wal_checkpoint(PASSIVE)")
                failure = nil
            } catch {
                // Busy (another instance checkpointing) or I/O: the next request tries again.
                failure = "\(error)"
            }
            shared.state.withLock { state in
                state.requested = false
                state.checkpoints += 1
                state.lastFailure = failure
            }
        }
        finished.signal()
    }
}
