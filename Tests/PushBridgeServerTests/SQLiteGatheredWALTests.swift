import Foundation
import Glibc
import Testing
@testable import PushBridgeServer

/// The writer's WAL written through the gathering VFS (`Sources/CSQLite/wal_gather.h`): a
/// commit's frames reach the file in one write, before `COMMIT` returns, so another process,
/// a copy of the files taken at that moment (what a crash leaves) and a checkpoint all see
/// exactly the committed rows; a write that fails fails the commit with unix's own error.
@Suite(.serialized)
struct SQLiteGatheredWALTests {
    /// A connection as the audit writer opens its own: WAL, `synchronous=NORMAL`, gathered or not.
    static func open(_ path: String, gathered: Bool = true) throws -> SQLiteDatabase {
        var options = SQLiteOpenOptions()
        options.gatheredWAL = gathered
        let database = try SQLiteDatabase(path: path, options: options)
        try database.configureDurableWAL()
        try database.execute("PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0")
        try database.execute("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        return database
    }

    /// Commits `count` rows of about `size` bytes each, ids from `first`, in one transaction.
    static func commit(_ database: SQLiteDatabase, first: Int, count: Int, size: Int = 1_500) throws {
        try database.transaction {
            let insert = try database.prepare("INSERT INTO rows (id, body) VALUES (?, ?)")
            for id in first..<(first + count) {
                try insert.bind([.integer(Int64(id)), .text(String(repeating: Character(UnicodeScalar(97 + id % 26)!), count: size))])
                try insert.run()
                try insert.reset()
            }
        }
    }

    /// `count(*)` and `sum(length(body) + id)` of `rows` in `path`, read by the `sqlite3`
    /// program (another process, SQLite's default VFS).
    static func readByAnotherProcess(_ path: String) throws -> String {
        let output = try CLIRunner.runProcess(URL(fileURLWithPath: "/usr/bin/sqlite3"), [path, "SELECT count(*) || ' ' || coalesce(sum(length(body) + id), 0) FROM rows"])
        try #require(output.status == 0, "sqlite3 failed: \(output.stderr)")
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func expected(_ ids: Range<Int>, size: Int = 1_500) -> String {
        "\(ids.count) \(ids.reduce(0) { $0 + $1 + size })"
    }

    @Test func aCommitReachesTheFileInOneWriteAndAnotherProcessReadsExactlyTheCommittedRows() throws {
        try withTemporaryDirectory("pushbridge-walgather") { directory in
            let path = directory.path("audit.sqlite")
            let database = try Self.open(path)
            var written = try #require(database.gatheredWALWrites, "the connection's WAL is not gathered")
            var next = 0
            for (round, count) in [1, 2, 7, 15, 40, 3].enumerated() {
                try Self.commit(database, first: next, count: count)
                next += count
                let now = try #require(database.gatheredWALWrites)
                #expect(now - written == 1, "commit \(round) of \(count) rows passed on \(now - written) writes")
                written = now
                #expect(try Self.readByAnotherProcess(path) == Self.expected(0..<next), "after commit \(round)")
            }
            // A commit past the buffer's 120 KiB goes in a few writes (unix's write takes
            // below 128 KiB at once), all of it there.
            try Self.commit(database, first: next, count: 150)
            next += 150
            #expect(try #require(database.gatheredWALWrites) - written >= 2)
            #expect(try Self.readByAnotherProcess(path) == Self.expected(0..<next), "after the large commit")
            // A transaction rolled back leaves nothing another process can see.
            do {
                try database.transaction {
                    try database.execute("INSERT INTO rows (id, body) VALUES (1000, 'x')")
                    throw SQLiteError(code: 1, message: "abandoned")
                }
            } catch {}
            #expect(try Self.readByAnotherProcess(path) == Self.expected(0..<next))
            // The checkpoint (another connection) copies every committed page into the file.
            let checkpointer = try SQLiteDatabase(path: path)
            try checkpointer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            try Self.commit(database, first: next, count: 5)
            next += 5
            #expect(try Self.readByAnotherProcess(path) == Self.expected(0..<next), "after the WAL restarted")
        }
    }

    @Test func theFilesCopiedRightAfterACommitHoldItAsACrashWouldLeaveThem() throws {
        try withTemporaryDirectory("pushbridge-walgather") { directory in
            let path = directory.path("audit.sqlite")
            let database = try Self.open(path)
            var next = 0
            for count in [4, 1, 25] {
                try Self.commit(database, first: next, count: count)
                next += count
                // No close, no checkpoint: the file and its WAL as the kernel holds them now.
                let copy = directory.path("copy-\(next).sqlite")
                try FileManager.default.copyItem(atPath: path, toPath: copy)
                try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
                #expect(try Self.readByAnotherProcess(copy) == Self.expected(0..<next), "the copy after \(next) rows")
            }
            _ = database
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aFullDiskFailsTheCommitWithUnixsErrorAndTheNextCommitAfterRoomLosesNothing() throws {
        var codes: [Bool: Int32] = [:]
        for gathered in [false, true] {
            try withTemporaryDirectory("pushbridge-walgather-full") { directory in
                let mountPoint = directory.url
                let mounted = try CLIRunner.runProcess(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.path])
                try #require(mounted.status == 0, "cannot mount a tmpfs (the test needs root, as in CI): \(mounted.stderr)")
                defer { _ = try? CLIRunner.runProcess(URL(fileURLWithPath: "/bin/umount"), ["-l", mountPoint.path]) }
                let path = mountPoint.appendingPathComponent("audit.sqlite").path
                let database = try Self.open(path, gathered: gathered)
                try Self.commit(database, first: 0, count: 10)
                let filler = mountPoint.appendingPathComponent("filler")
                AuditCompletionFailureTests.fill(filler)
                do {
                    try Self.commit(database, first: 10, count: 40)
                    Issue.record("a commit on a full disk succeeded (gathered: \(gathered))")
                } catch let error as SQLiteError {
                    codes[gathered] = error.extendedResultCode
                }
                #expect(try Self.readByAnotherProcess(path) == Self.expected(0..<10), "gathered: \(gathered)")
                try FileManager.default.removeItem(at: filler)
                try Self.commit(database, first: 10, count: 40)
                #expect(try Self.readByAnotherProcess(path) == Self.expected(0..<50), "gathered: \(gathered)")
                let copy = directory.path("copy.sqlite")
                try FileManager.default.copyItem(atPath: path, toPath: copy)
                try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
                #expect(try Self.readByAnotherProcess(copy) == Self.expected(0..<50), "gathered: \(gathered), the copy")
            }
        }
        #expect(codes[false] == Self.sqliteFull, "unix failed with \(String(describing: codes[false])), not SQLITE_FULL")
        #expect(codes[true] == codes[false], "the gathered WAL failed with \(String(describing: codes[true])), unix with \(String(describing: codes[false]))")
    }

    /// `SQLITE_FULL`.
    static let sqliteFull: Int32 = 13
}
