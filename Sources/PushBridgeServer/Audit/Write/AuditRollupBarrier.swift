import Foundation
import Synchronization

/// The SQLite writer's promise to readers in its own process that must read exact rollups
/// (the report, readiness, the admin page): before they read, the counters the writer carries
/// (``AuditRollupCarry``) are committed. Callers are never held for the carry (each is answered
/// once its own commit is durable, as without it); a reader that finds a carry asks the writer
/// to write it (``writeCarriedFirst(wake:)``): the writer's next batch then writes it with its
/// own, or, with nothing queued, the writer writes it alone at once. Readers in other
/// processes see the rollups lag by at most ``AuditStoreConfiguration/sqliteRollupInterval``.
///
/// Found by the audit's file (``registered(at:)``: its device and inode, however the path is
/// spelled), so every ``AuditReader`` of the file in this process waits on it, not only the store's own.
///
/// Why `@unchecked Sendable` is sound: every field is read and written only under `condition`'s lock.
final class AuditRollupBarrier: @unchecked Sendable {
    private let condition = NSCondition()
    /// The writer holds committed counters it has not written.
    private var carrying = false
    /// Readers waiting for the carry to be written.
    private var wanted = 0
    /// How many carries were written (or given up) so far.
    private var written = 0

    /// How long a reader waits at most (a writer stuck on a locked file: it then reads what is there).
    static let patience: TimeInterval = 2

    /// Whether a reader waits for the carry: the writer then carries nothing more and writes it.
    var isWanted: Bool {
        condition.lock()
        defer { condition.unlock() }
        return wanted > 0 && carrying
    }

    /// The writer started a carry (its batch committed without its counters).
    func carryStarted() {
        condition.lock()
        carrying = true
        condition.unlock()
    }

    /// The writer committed what it carried (or gave it up, leaving a recount owed): waiting
    /// readers go on.
    func carryEnded() {
        condition.lock()
        defer { condition.unlock() }
        guard carrying else { return }
        carrying = false
        written += 1
        condition.broadcast()
    }

    /// Returns once nothing carried before the call is still unwritten (at once when nothing
    /// is carried), calling `wake` to rouse an idle writer; gives up after ``patience``.
    func writeCarriedFirst(wake: () -> Void) {
        condition.lock()
        guard carrying else {
            condition.unlock()
            return
        }
        let mark = written
        wanted += 1
        condition.unlock()
        wake()
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: Self.patience)
        while carrying && written == mark {
            if !condition.wait(until: deadline) { break }
        }
        wanted -= 1
        condition.unlock()
    }

    // MARK: The process's open SQLite audits

    /// Which file a path names: its device and inode, so a reader that spells the path another
    /// way (relative, through a symbolic or hard link, with `.` or `..`) still finds the file's writer.
    struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64

        /// The identity of the file at `path`; nil when it cannot be read (no such file).
        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// The writers of the SQLite audits open in this process, by file. A map and not a reference
    /// handed to each reader because readers are opened by path as well as by their store (the
    /// rollout monitor's own connection, the reach warning, a command run in the process, the
    /// tests), and each of them must read the same exact figures.
    private static let open = Mutex<[FileIdentity: AuditWriter]>([:])

    /// The writer of the SQLite audit at `path` open in this process, if any.
    static func registered(at path: String) -> AuditWriter? {
        guard let file = FileIdentity(path: path) else { return nil }
        return open.withLock { $0[file] }
    }

    /// `writer` writes the SQLite audit `file`.
    static func register(_ writer: AuditWriter, as file: FileIdentity) {
        open.withLock { $0[file] = writer }
    }

    /// `writer` closed the audit `file`.
    static func unregister(_ writer: AuditWriter, as file: FileIdentity) {
        open.withLock { if $0[file] === writer { $0[file] = nil } }
    }
}
