import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `audit prune` (another process) on a file a running writer holds: its close leaves the
/// writer's `-wal` and `-shm` where they are, and every reader opened afterwards (here, through
/// ``AuditReader`` and in another process) reads the writer's later commits. The prune's
/// connection checkpoints and deletes the WAL when it closes only if it is the file's last
/// connection, which it is not while the writer's process holds its locks: a test that copied
/// or read the live database file in its own process dropped them (``LiveDatabaseFiles``),
/// and a connection opened after the prune and the writer's next commit then failed with
/// `SQLITE_IOERR_SHORT_READ` (522) on its first read.
@Suite(.serialized) struct AuditPruneBesideWriterTests {
    /// A row old enough for `--older-than-days 1`, and rows of now, which stay.
    static let old: Int64 = 1_700_000_000_000

    /// The file's inode and device, or nil when there is no file at `path` (`stat`, which
    /// opens nothing).
    static func identity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    static func record(_ store: AuditStore, _ id: String, at: Int64) async throws {
        try await store.record(sampleEntry(id, receivedAt: at), sampleCompletion(finishedAt: at + 120))
    }

    static func count(_ database: SQLiteDatabase) throws -> [[SQLiteValue]] {
        try database.rows("SELECT count(*) FROM request_log")
    }

    static func prune(_ path: String) async throws {
        let pruned = try await CLIRunner.runAsync(["audit", "prune", "--db", path, "--older-than-days", "1"])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(pruned.stdout.contains("pruned 1 request"), "\(pruned.stdout)")
    }

    /// What production does: the proxy's process opens its file through SQLite only. With the
    /// default checkpointer and with none (`0`), the prune leaves the WAL and its index (same
    /// inodes), and a new connection, a new reader and `audit list` read the writer's next row.
    @Test(arguments: [AuditStoreConfiguration().walAutocheckpointPages, 0])
    func aPruneBesideTheWriterLeavesItsWALAndEveryLaterReaderReadsOn(pages: Int) async throws {
        try await withTemporaryDirectory("pushbridge-prune-beside") { directory in
            let path = directory.path("audit.sqlite")
            var configuration = AuditStoreConfiguration()
            configuration.walAutocheckpointPages = pages
            let store = try AuditStore(path: path, configuration: configuration)
            let now = AuditClock.nowMilliseconds()
            try await Self.record(store, "B-1", at: Self.old)
            try await Self.record(store, "B-2", at: now)
            let older = try SQLiteDatabase(path: path)
            #expect(try Self.count(older) == [[.integer(2)]])
            let files = [Self.identity(path + "-wal"), Self.identity(path + "-shm")]
            #expect(!files.contains(nil))

            try await Self.prune(path)
            #expect([Self.identity(path + "-wal"), Self.identity(path + "-shm")] == files)
            try await Self.record(store, "B-3", at: now + 1)

            let fresh = try SQLiteDatabase(path: path)
            #expect(try Self.count(fresh) == [[.integer(2)]])
            #expect(try AuditReader(path: path).list().map(\.requestId) == ["B-3", "B-2"])
            let listed = try await CLIRunner.runAsync(["audit", "list", "--db", path, "--format", "json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains("B-3") && listed.stdout.contains("B-2") && !listed.stdout.contains("B-1"), "\(listed.stdout)")
            #expect(try Self.count(older) == [[.integer(2)]])
            await store.close()
            #expect(try Self.count(fresh) == [[.integer(2)]])
        }
    }

    /// The crash image of a test (the file and its WAL as a kill leaves them) copied while the
    /// writer runs, then the same prune: the copy is made by a child process, so the writer's
    /// locks stay and a connection opened after the prune and the writer's next commit reads
    /// (with `FileManager.copyItem` here it failed with 522 and `audit list` listed nothing).
    @Test func aCrashImageCopiedBesideTheWriterLeavesItsLocks() async throws {
        try await withTemporaryDirectory("pushbridge-prune-image") { directory in
            let path = directory.path("audit.sqlite")
            let image = directory.path("image.sqlite")
            var configuration = AuditStoreConfiguration()
            configuration.walAutocheckpointPages = 0
            let store = try AuditStore(path: path, configuration: configuration)
            let now = AuditClock.nowMilliseconds()
            try await Self.record(store, "C-1", at: Self.old)
            try await Self.record(store, "C-2", at: now)
            let older = try SQLiteDatabase(path: path)
            #expect(try Self.count(older) == [[.integer(2)]])
            try LiveDatabaseFiles.copy(path, to: image)
            #expect(try Self.count(try SQLiteDatabase(path: image)) == [[.integer(2)]])

            let wal = Self.identity(path + "-wal")
            try await Self.prune(path)
            #expect(Self.identity(path + "-wal") == wal)
            try await Self.record(store, "C-3", at: now + 1)
            let fresh = try SQLiteDatabase(path: path)
            #expect(try Self.count(fresh) == [[.integer(2)]])
            let listed = try await CLIRunner.runAsync(["audit", "list", "--db", path, "--format", "json"])
            #expect(listed.stdout.contains("C-3") && listed.stdout.contains("C-2"), "\(listed.stdout)")
            await store.close()
        }
    }

    /// The cause, pinned: a copy of the live database file made in the writer's own process
    /// releases its locks (POSIX locks are the process's), so the prune's close takes itself
    /// for the last connection and deletes the `-wal` and `-shm` under the running writer.
    /// Should this ever stop failing the old way, ``LiveDatabaseFiles`` may be unneeded.
    @Test func aCopyInTheWritersProcessDropsItsLocks() async throws {
        try await withTemporaryDirectory("pushbridge-prune-dropped") { directory in
            let path = directory.path("audit.sqlite")
            var configuration = AuditStoreConfiguration()
            configuration.walAutocheckpointPages = 0
            let store = try AuditStore(path: path, configuration: configuration)
            try await Self.record(store, "D-1", at: Self.old)
            #expect(Self.identity(path + "-wal") != nil)
            try FileManager.default.copyItem(atPath: path, toPath: directory.path("copy.sqlite"))
            try await Self.prune(path)
            #expect(Self.identity(path + "-wal") == nil)
            #expect(Self.identity(path + "-shm") == nil)
            await store.close()
        }
    }
}
