import Foundation
import Testing
@testable import PushBridgeServer

/// The activity ledger's reader keeps its queries compiled (``SQLiteCachedStatements``): the
/// same answers as compiling each time, what another connection committed since is seen, and no
/// read stays open between reads (a checkpoint that must wait for readers completes).
struct SQLiteCachedStatementsTests {
    /// A WAL database with a table `t (k TEXT PRIMARY KEY, v INTEGER)` holding ("a", 1), its
    /// writer connection and a cached reader on the same file.
    private func withDatabase(_ body: (_ writer: SQLiteDatabase, _ reader: SQLiteCachedStatements) throws -> Void) throws {
        try withTemporaryDirectory("pushbridge-cached-statements") { directory in
            let path = directory.path("ledger.sqlite")
            let writer = try SQLiteDatabase(path: path)
            try writer.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)")
            try writer.execute("INSERT INTO t VALUES (?, ?)", [.text("a"), .integer(1)])
            try body(writer, SQLiteCachedStatements(try SQLiteDatabase(path: path), capacity: 2))
        }
    }

    @Test func aCachedQuerySeesWhatAnotherConnectionCommittedSince() throws {
        try withDatabase { writer, reader in
            let sql = "SELECT v FROM t WHERE k = ?"
            #expect(try reader.select(sql, [.text("a")]) == [[.integer(1)]])
            #expect(reader.cachedCount == 1)
            try writer.execute("UPDATE t SET v = 2 WHERE k = 'a'")
            try writer.execute("INSERT INTO t VALUES ('b', 3)")
            // The same compiled statement, new bindings, the new commit.
            #expect(try reader.select(sql, [.text("a")]) == [[.integer(2)]])
            #expect(try reader.select(sql, [.text("b")]) == [[.integer(3)]])
            #expect(try reader.select(sql, [.text("z")]) == [])
            #expect(reader.cachedCount == 1)
        }
    }

    @Test func noReadStaysOpenBetweenReadsSoACheckpointCompletes() throws {
        try withDatabase { writer, reader in
            // A query that stops after its first row would leave its statement mid-read if it
            // were not reset: select every row, then one that fails to bind.
            #expect(try reader.select("SELECT k FROM t ORDER BY k", []).count == 1)
            #expect(throws: SQLiteError.self) { try reader.select("SELECT k FROM t WHERE k = ?", []) }
            try writer.execute("INSERT INTO t VALUES ('b', 3)")
            // TRUNCATE waits for no reader only when none holds a snapshot: busy is 0.
            let checkpoint = try writer.rows("PRAGMA wal_checkpoint(TRUNCATE)")
            #expect(checkpoint.first?.first == .integer(0), "a cached statement kept a read open: \(checkpoint)")
            #expect(try reader.select("SELECT count(*) FROM t", []) == [[.integer(2)]])
        }
    }

    @Test func queriesPastTheCapacityStillRunAndAreNotKept() throws {
        try withDatabase { _, reader in
            for n in 1...4 {
                let sql = "SELECT v + \(n) FROM t"
                let rows = try reader.select(sql, [])
                #expect(rows == [[.integer(1 + Int64(n))]])
            }
            #expect(reader.cachedCount == 2)
        }
    }
}
