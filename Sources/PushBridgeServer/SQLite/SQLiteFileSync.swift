import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open descriptor on a file SQLite writes (the audit's `-wal`), kept only to make its
/// contents durable with `fdatasync(2)` from another thread. Closed when the last reference
/// goes.
///
/// Opened read-only and never written, locked or truncated through: SQLite keeps its locks on
/// the database and `-shm` files, so this descriptor cannot release one of them when it
/// closes. `fdatasync` flushes the inode's dirty pages whichever descriptor wrote them.
final class SQLiteFileSync: @unchecked Sendable {
    /// The file's path when it was opened.
    let path: String
    /// The descriptor; valid for the object's lifetime. Immutable, and `fdatasync` on it is
    /// thread-safe, hence `@unchecked Sendable`.
    private let descriptor: Int32

    /// Opens the existing file at `path`; throws when it is missing or cannot be opened.
    init(path: String) throws(SQLiteError) {
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "cannot open \(path) to sync it: \(Self.errorText(errno))")
        }
        self.path = path
        self.descriptor = opened
    }

    deinit {
        close(descriptor)
    }

    /// Blocks until every byte written to the file so far (by any descriptor) is on stable
    /// storage. Throws an I/O error (`SQLITE_IOERR_FSYNC`, which Swift cannot import as a name) when the kernel reports a failure;
    /// after one, the file's unsynced pages may be lost and must not be trusted.
    func synchronize() throws(SQLiteError) {
        var result: Int32
        repeat { result = fdatasync(descriptor) } while result != 0 && errno == EINTR
        guard result == 0 else {
            throw SQLiteError(code: SQLITE_IOERR | (4 << 8), message: "fdatasync of \(path) failed: \(Self.errorText(errno))")
        }
    }

    /// Makes the file's directory entry durable (`fsync` of its directory), for a file that
    /// may have been created since the directory was last synced.
    func synchronizeDirectory() throws(SQLiteError) {
        let directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let handle = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard handle >= 0 else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "cannot open \(directory) to sync it: \(Self.errorText(errno))")
        }
        defer { close(handle) }
        var result: Int32
        repeat { result = fsync(handle) } while result != 0 && errno == EINTR
        guard result == 0 else {
            throw SQLiteError(code: SQLITE_IOERR | (5 << 8), message: "fsync of \(directory) failed: \(Self.errorText(errno))")
        }
    }

    private static func errorText(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "errno \(code)"
    }

}
