import Foundation
import Synchronization
import Testing
@testable import PushBridgeServer

/// The SQLite read connection an event loop may use without waiting: the activity ledger's
/// read on a request's loop takes it only when it is free (a listing in progress on the
/// ledger's queue never blocks the loop) and goes through the queue otherwise.
struct SQLiteReadSourceTests {
    @Test func aReadIfAvailableRunsOnAFreeConnectionAndStandsAsideForABusyOne() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await store.record(sampleEntry("FREE1"), sampleCompletion())
            let source = SQLiteReadSource(try AuditDatabase.openForReading(path: path, busyTimeout: .seconds(5)))
            let count = "SELECT count(*) FROM requests"
            #expect(try source.withSQLIfAvailable { try $0.select(count, []) } == [[.integer(1)]])
            // Another caller holds the connection (a long listing): the read stands aside.
            let holding = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let holder = Thread {
                _ = try? source.withSQL { _ in
                    holding.signal()
                    release.wait()
                }
            }
            holder.start()
            holding.wait()
            let ranBusy = Mutex(false)
            let busy = try source.withSQLIfAvailable { sql -> [[SQLiteValue]] in
                ranBusy.withLock { $0 = true }
                return try sql.select(count, [])
            }
            release.signal()
            #expect(busy == nil && !ranBusy.withLock { $0 }, "a read ran on a connection someone else held")
            #expect(await eventually(5) { (try? source.withSQLIfAvailable { try $0.select(count, []) }) == [[.integer(1)]] },
                    "the connection never came free again")
            await store.close()
        }
    }

    /// A read on a loop never sleeps out the busy timeout: another connection holding a lock
    /// readers must wait for (`BEGIN EXCLUSIVE` on a file in rollback-journal mode: in WAL
    /// mode a reader waits only on such rare locks as a crashed writer's recovery) makes it
    /// stand aside at once (nil: the ledger then reads on its queue, where waiting is
    /// allowed), and the connection keeps its busy timeout for the reads that may wait.
    @Test func aReadIfAvailableStandsAsideForAnotherConnectionsLockInsteadOfWaiting() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pb-read-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("audit.sqlite").path
        let locker = try SQLiteDatabase(path: path)
        try locker.execute("PRAGMA journal_mode = DELETE; CREATE TABLE requests (request_id TEXT); CREATE TABLE findings (request_id TEXT); INSERT INTO requests VALUES ('LOCK1')")
        // Thirty seconds: had the read waited them out it would throw busy, not stand aside.
        let source = SQLiteReadSource(try AuditDatabase.openForReading(path: path, busyTimeout: .seconds(30)))
        let count = "SELECT count(*) FROM requests"
        #expect(try source.withSQLIfAvailable { try $0.select(count, []) } == [[.integer(1)]])
        try locker.execute("BEGIN EXCLUSIVE; INSERT INTO requests VALUES ('LOCK2')")
        let busy = try source.withSQLIfAvailable { try $0.select(count, []) }
        #expect(busy == nil, "a read on a locked file did not stand aside")
        #expect(try source.withSQL { try $0.select("PRAGMA busy_timeout", []) } == [[.integer(30_000)]], "the busy timeout was not restored")
        try locker.execute("COMMIT")
        #expect(try source.withSQLIfAvailable { try $0.select(count, []) } == [[.integer(2)]], "the read did not come back once the lock was gone")
    }
}
