import Foundation
import Glibc
import Synchronization

/// Watches the audit's disk use so that a full disk is seen coming: the bytes its rows take,
/// the bytes its files take, and the free space of the filesystem it is on, against a ceiling
/// and a floor (``AuditLimits``). Read on every `/healthz` and `/metrics` and by a periodic
/// check that logs a warning when a limit is crossed (and a line when it clears).
public final class AuditDiskGuard: Sendable {
    /// One reading.
    public struct Reading: Sendable, Equatable {
        /// Bytes of the pages that hold rows (the database's pages, as the latest commit left
        /// them, minus its free list): what the ceiling is compared with, and what
        /// `audit prune` and retention bring down.
        public var usedBytes: Int64
        /// Bytes of the database file and its WAL on disk (SQLite reuses freed pages, so this
        /// shrinks only with `VACUUM`).
        public var fileBytes: Int64
        /// Bytes free for an unprivileged writer on the audit's filesystem.
        public var freeBytes: Int64
        /// What is wrong, in words, empty when nothing is.
        public var warnings: [String]
    }

    private let path: String
    private let limits: AuditLimits
    private let pages: AuditReader
    private let warned = Mutex(false)

    /// A guard for the audit at `path`, on its own read connection.
    public init(path: String, limits: AuditLimits, busyTimeout: Duration) throws(AuditError) {
        self.path = path
        self.limits = limits
        self.pages = try AuditReader(path: path, busyTimeout: busyTimeout)
    }

    /// Measures now. When the page counts cannot be read the file sizes count as used, and when
    /// the filesystem cannot be asked no space counts as free: a failure warns, never hides.
    public func read() -> Reading {
        let wal = Self.fileSize(path + "-wal")
        let file = Self.fileSize(path) + wal
        var used = file
        if let row = try? pages.query("SELECT page_count * page_size, freelist_count * page_size FROM pragma_page_count, pragma_page_size, pragma_freelist_count").first,
           let total = row[0].integerValue, let free = row[1].integerValue {
            used = total - free
        }
        let freeBytes = Self.freeSpace(forFileAt: path)
        var warnings: [String] = []
        if used > limits.maxBytes {
            warnings.append("audit holds \(used >> 20) MiB, past audit_max_mib (\(limits.maxBytes >> 20)); lower audit_retention_days or run pushbridge audit prune")
        }
        if freeBytes < limits.minFreeBytes {
            warnings.append("\(freeBytes >> 20) MiB free on the audit's filesystem, under audit_min_free_mib (\(limits.minFreeBytes >> 20)); a full disk stops forwarding")
        }
        return Reading(usedBytes: used, fileBytes: file, freeBytes: freeBytes, warnings: warnings)
    }

    /// Reads and logs a warning when a limit is newly crossed, and a line when all clear again.
    @discardableResult
    public func check(log: EventLog) -> Reading {
        let reading = read()
        let wasWarning = warned.withLock { warned in
            defer { warned = !reading.warnings.isEmpty }
            return warned
        }
        if !reading.warnings.isEmpty, !wasWarning {
            log.warning("audit disk: \(reading.warnings.joined(separator: "; "))",
                        ["audit_used_bytes": .int(reading.usedBytes), "audit_free_bytes": .int(reading.freeBytes)])
        } else if reading.warnings.isEmpty, wasWarning {
            log.info("audit disk back within its limits", ["audit_used_bytes": .int(reading.usedBytes), "audit_free_bytes": .int(reading.freeBytes)])
        }
        return reading
    }

    /// The configured limits.
    public var ceilingBytes: Int64 { limits.maxBytes }
    /// The configured floor of free space.
    public var floorBytes: Int64 { limits.minFreeBytes }

    private static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    private static func freeSpace(forFileAt path: String) -> Int64 {
        let directory = (path as NSString).deletingLastPathComponent
        var info = statvfs()
        guard statvfs(directory.isEmpty ? "." : directory, &info) == 0 else { return 0 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
