import Foundation

/// Copying or reading the files of a database that a connection of this process has open,
/// without taking that connection's locks away.
///
/// SQLite (unix VFS) locks the database file with POSIX advisory locks (`fcntl(F_SETLK)`),
/// which belong to the process and the file, not to a descriptor: closing *any* descriptor of
/// the database file in this process (`FileManager.copyItem`, `Data(contentsOf:)`) releases
/// every lock this process's connections hold on it, while SQLite still believes it holds them
/// (it never takes them again). A connection of another process that closes next (`audit
/// prune`) then gets its `EXCLUSIVE` lock, takes itself for the file's last connection,
/// checkpoints the WAL and deletes the `-wal` and `-shm` files under this process's writer.
/// The writer commits on into the unlinked WAL; a connection opened here afterwards creates a
/// new, empty `-wal` beside the old wal-index this process still maps, and its first read of a
/// frame fails with `SQLITE_IOERR_SHORT_READ` (522); another process's reader sees none of the
/// writer's later commits (`AuditPruneBesideWriterTests`). A child process's descriptors
/// release only the child's locks, so these copy and read through `cp` and `cat`.
enum LiveDatabaseFiles {
    /// `cp` or `cat` failed.
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// Copies `path` + each of `suffixes` that exists to `destination` + the same suffix, as it
    /// is on disk now (a kill's image when the writer is left open).
    static func copy(_ path: String, to destination: String, suffixes: [String] = ["", "-wal"]) throws {
        for suffix in suffixes where FileManager.default.fileExists(atPath: path + suffix) {
            let copied = try CLIRunner.runProcess(URL(fileURLWithPath: "/bin/cp"), [path + suffix, destination + suffix])
            guard copied.status == 0 else { throw Failed(description: "cp \(path + suffix): \(copied.stderr)") }
        }
    }

    /// The bytes of the files at `paths` that exist, one after the other.
    static func bytes(_ paths: [String]) throws -> [UInt8] {
        let existing = paths.filter { FileManager.default.fileExists(atPath: $0) }
        guard !existing.isEmpty else { return [] }
        let cat = Process()
        cat.executableURL = URL(fileURLWithPath: "/bin/cat")
        cat.arguments = existing
        let out = Pipe()
        cat.standardOutput = out
        try cat.run()
        let bytes = out.fileHandleForReading.readDataToEndOfFile()
        cat.waitUntilExit()
        guard cat.terminationStatus == 0 else { throw Failed(description: "cat \(existing) exited with \(cat.terminationStatus)") }
        return [UInt8](bytes)
    }
}
