import Foundation
import Synchronization
import Testing
@testable import PushBridgeServer

/// Several processes opening one fresh database at once (instances started together, or the
/// proxy and `audit prune`) must each end with the whole schema, applied exactly once.
struct ConcurrentMigrationTests {
    /// Runs `open` on `count` threads released together, each with its own connection to `path`;
    /// returns the errors they threw.
    private func openTogether(_ count: Int, _ open: @escaping @Sendable () throws -> Void) -> [String] {
        let ready = Atomic<Int>(0)
        let errors = Mutex<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<count {
            group.enter()
            Thread.detachNewThread {
                ready.add(1, ordering: .sequentiallyConsistent)
                while ready.load(ordering: .sequentiallyConsistent) < count { sched_yield() }
                do { try open() } catch { errors.withLock { $0.append("\(error)") } }
                group.leave()
            }
        }
        group.wait()
        return errors.withLock { $0 }
    }

    @Test func threeConnectionsMigrateAFreshFileOnce() throws {
        for round in 0..<5 {
            let folder = try TemporaryDirectory("pushbridge-migrate")
            let directory = folder.url
            let path = directory.appendingPathComponent("shared.sqlite").path
            let errors = openTogether(3) {
                let database = try SQLiteDatabase(path: path)
                try database.execute("PRAGMA busy_timeout = 10000")
                var migrator = SQLiteMigrator()
                migrator.register(1, "create events", sql: "CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT NOT NULL)")
                migrator.register(2, "add payload", sql: "ALTER TABLE events ADD COLUMN payload BLOB")
                try migrator.migrate(database)
            }
            #expect(errors.isEmpty, "round \(round): \(errors)")
            let database = try SQLiteDatabase(path: path)
            #expect(try database.rows("SELECT number FROM \(SQLiteMigrator.tableName) ORDER BY number") == [[.integer(1)], [.integer(2)]])
        }
    }

    @Test func threeWritersOpenAFreshAuditFileTogether() throws {
        for round in 0..<3 {
            let folder = try TemporaryDirectory("pushbridge-migrate")
            let directory = folder.url
            let path = directory.appendingPathComponent("audit.sqlite").path
            let errors = openTogether(3) {
                _ = try AuditDatabase.openForWriting(path: path, configuration: AuditStoreConfiguration())
            }
            #expect(errors.isEmpty, "round \(round): \(errors)")
            let database = try SQLiteDatabase(path: path)
            let applied = try SQLiteMigrator().appliedNumbers(in: database)
            #expect(applied == AuditSchema.migrator.migrations.map(\.number).sorted())
        }
    }
}
