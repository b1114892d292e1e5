import Foundation
import Testing
@testable import PushBridgeServer

struct SQLiteTests {
    /// A fresh database file in its own temporary directory.
    private func withTemporaryDatabase(_ body: (String) throws -> Void) throws {
        try withTemporaryDirectory("pushbridge-sqlite") { directory in try body(directory.path("audit.sqlite")) }
    }

    private func migrator() -> SQLiteMigrator {
        var migrator = SQLiteMigrator()
        migrator.register(1, "create events", sql: "CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT NOT NULL)")
        migrator.register(2, "add payload") { database in
            try database.execute("ALTER TABLE events ADD COLUMN payload BLOB")
        }
        return migrator
    }

    @Test func migrationsApplyOnceAcrossReopens() throws {
        try withTemporaryDatabase { path in
            do {
                let database = try SQLiteDatabase(path: path)
                #expect(try migrator().migrate(database) == [1, 2])
                #expect(try migrator().migrate(database) == [])
            }
            let reopened = try SQLiteDatabase(path: path)
            #expect(try migrator().migrate(reopened) == [])
            #expect(try migrator().appliedNumbers(in: reopened) == [1, 2])
            // The schema of both migrations is there exactly once.
            try reopened.execute("INSERT INTO events (kind, payload) VALUES (?, ?)", [.text("start"), .blob([1])])
            #expect(try reopened.rows("SELECT count(*) FROM events") == [[.integer(1)]])
        }
    }

    @Test func failingMigrationLeavesNoTraceAndStopsLaterOnes() throws {
        try withTemporaryDatabase { path in
            let database = try SQLiteDatabase(path: path)
            var broken = migrator()
            broken.register(3, "broken") { database in
                try database.execute("CREATE TABLE half_done (x INTEGER)")
                try database.execute("THIS IS NOT SQL")
            }
            broken.register(4, "never reached", sql: "CREATE TABLE later (x INTEGER)")
            #expect(throws: SQLiteError.self) { try broken.migrate(database) }
            #expect(try broken.appliedNumbers(in: database) == [1, 2])
            #expect(try database.rows("SELECT name FROM sqlite_master WHERE name IN ('half_done', 'later')").isEmpty)
        }
    }

    @Test func databaseFromANewerBuildIsRefused() throws {
        try withTemporaryDatabase { path in
            let database = try SQLiteDatabase(path: path)
            try migrator().migrate(database)
            var older = SQLiteMigrator()
            older.register(1, "create events", sql: "CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT NOT NULL)")
            #expect(throws: SQLiteError.self) { try older.migrate(database) }
        }
    }

    @Test func transactionRollsBackOnThrow() throws {
        struct Abort: Error {}
        try withTemporaryDatabase { path in
            let database = try SQLiteDatabase(path: path)
            try database.execute("CREATE TABLE t (x INTEGER)")
            #expect(throws: Abort.self) {
                try database.transaction {
                    try database.execute("INSERT INTO t VALUES (?)", [.integer(1)])
                    try database.execute("INSERT INTO t VALUES (?)", [.integer(2)])
                    throw Abort()
                }
            }
            #expect(!database.isInTransaction)
            #expect(try database.rows("SELECT count(*) FROM t") == [[.integer(0)]])
            let committed = try database.transaction { () throws -> Int64 in
                try database.execute("INSERT INTO t VALUES (?)", [.integer(3)])
                return database.lastInsertRowID
            }
            #expect(committed == 1)
            #expect(try database.rows("SELECT x FROM t") == [[.integer(3)]])
        }
    }

    @Test func bindingsRoundTrip() throws {
        try withTemporaryDatabase { path in
            let database = try SQLiteDatabase(path: path)
            try database.execute("CREATE TABLE v (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
            let text = "Zoë 🚀 中文 \u{0}after-nul"
            let blob: [UInt8] = [0, 255, 1, 0, 128]
            let insert = try database.prepare("INSERT INTO v VALUES (?, ?, ?, ?, ?)")
            try insert.bind(Int64.max, at: 1)
            try insert.bind(-0.5, at: 2)
            try insert.bind(text, at: 3)
            try insert.bind(blob, at: 4)
            try insert.bindNull(at: 5)
            try insert.run()
            try insert.reset()
            try insert.bind([.integer(Int64.min), .real(1e300), .text(""), .blob([]), .null])
            try insert.run()

            let select = try database.prepare("SELECT i, r, s, b, n FROM v ORDER BY rowid")
            #expect(try select.step())
            #expect(select.int64(at: 0) == Int64.max)
            #expect(select.double(at: 1) == -0.5)
            #expect(select.text(at: 2) == text)
            #expect(select.blob(at: 3) == blob)
            #expect(select.isNull(at: 4))
            #expect(select.text(at: 4) == nil)
            #expect(select.columnName(at: 2) == "s")
            #expect(try select.step())
            #expect(select.value(at: 0) == .integer(Int64.min))
            #expect(select.value(at: 1) == .real(1e300))
            #expect(select.value(at: 2) == .text(""))
            #expect(select.value(at: 3) == .blob([]))
            #expect(select.value(at: 4) == .null)
            #expect(try !select.step())
        }
    }

    @Test func errorCarriesSQLAndCodeButNotArguments() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        let badSQL = "SELEKT * FROM nowhere"
        do {
            _ = try database.prepare(badSQL)
            Issue.record("bad SQL compiled")
        } catch {
            #expect(error.resultCode == 1) // SQLITE_ERROR
            #expect(error.sql == badSQL)
            #expect(error.message.contains("syntax error"))
            #expect(error.description.contains(badSQL))
        }
        try database.execute("CREATE TABLE k (token TEXT UNIQUE)")
        try database.execute("INSERT INTO k VALUES (?)", [.text("secret-device-token")])
        do {
            try database.execute("INSERT INTO k VALUES (?)", [.text("secret-device-token")])
            Issue.record("duplicate accepted")
        } catch {
            #expect(error.resultCode == 19) // SQLITE_CONSTRAINT
            #expect(error.extendedResultCode == 2067) // SQLITE_CONSTRAINT_UNIQUE
            #expect(error.sql == "INSERT INTO k VALUES (?)")
            #expect(!error.description.contains("secret-device-token"))
        }
        #expect(throws: SQLiteError.self) { _ = try database.prepare("SELECT 1; SELECT 2") }
        #expect(throws: SQLiteError.self) { try database.execute("SELECT ?", []) }
    }

    @Test func durableWALIsReallyOn() throws {
        try withTemporaryDatabase { path in
            let database = try SQLiteDatabase(path: path)
            try database.configureDurableWAL()
            #expect(try database.journalMode == "wal")
            #expect(try database.pragma("synchronous") == .integer(2)) // FULL
            // A second connection sees WAL as the file's persistent mode.
            let other = try SQLiteDatabase(path: path)
            #expect(try other.journalMode == "wal")
        }
        let memory = try SQLiteDatabase(path: ":memory:")
        #expect(throws: SQLiteError.self) { try memory.configureDurableWAL() }
    }

    @Test func openingAMissingFileReadOnlyFails() throws {
        var options = SQLiteOpenOptions()
        options.readOnly = true
        #expect(throws: SQLiteError.self) {
            _ = try SQLiteDatabase(path: "/nonexistent-dir-\(UUID().uuidString)/x.sqlite", options: options)
        }
    }
}
