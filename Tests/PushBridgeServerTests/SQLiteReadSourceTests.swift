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
}
