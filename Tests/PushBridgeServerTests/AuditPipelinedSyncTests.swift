import Foundation
import PushBridgeCore
import Synchronization
import Testing
@testable import PushBridgeServer

/// The pipelined group commit: a write returns only after the WAL holding it was synced, a
/// failed sync fails the write (and every later one), and `synchronous=FULL` mode still works.
struct AuditPipelinedSyncTests {
    /// A gate the syncer thread waits at until the test opens it.
    final class Gate: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        let reached = Mutex(0)
        func pass() {
            reached.withLock { $0 += 1 }
            semaphore.wait()
            semaphore.signal()
        }
        func open() { semaphore.signal() }
    }

    @Test func aWriteReturnsOnlyAfterItsWALIsSynced() async throws {
        try await withTemporaryAudit { path in
            let gate = Gate()
            var configuration = AuditStoreConfiguration()
            configuration.beforeWALSync = { gate.pass() }
            let store = try AuditStore(path: path, configuration: configuration)
            let returned = Mutex(false)
            let write = Task {
                try await store.record(sampleEntry("SYNCED1"), sampleCompletion())
                returned.withLock { $0 = true }
            }
            // The row is committed (another connection sees it) while its sync is held back...
            let reader = store.reader
            #expect(await eventually(5) { (try? reader.query("SELECT count(*) FROM requests WHERE request_id = 'SYNCED1'")) == [[.integer(1)]] })
            #expect(await eventually(5) { gate.reached.withLock { $0 } >= 1 }, "the sync never reached the gate")
            // ...and its caller has not been told.
            #expect(returned.withLock { $0 } == false)
            gate.open()
            try await write.value
            #expect(returned.withLock { $0 })
            #expect(try store.reader.show(requestId: "SYNCED1")?.outcome == "forwarded")
            await store.close()
        }
    }

    @Test func aFailedWALSyncFailsThatWriteAndEveryLaterOne() async throws {
        try await withTemporaryAudit { path in
            var configuration = AuditStoreConfiguration()
            configuration.beforeWALSync = { throw SQLiteError(code: 10 | (4 << 8), message: "injected fdatasync failure") }
            let store = try AuditStore(path: path, configuration: configuration)
            await #expect(throws: AuditError.self) { try await store.record(sampleEntry("LOST1"), sampleCompletion()) }
            await #expect(throws: AuditError.self) { try await store.begin(sampleEntry("LOST2")) }
            #expect(store.statistics.operations == 0)
            #expect(store.statistics.failedTransactions == 2)
            await store.close()
        }
    }

    @Test func synchronousFullModeStillWritesEveryPair() async throws {
        try await withTemporaryAudit { path in
            var configuration = AuditStoreConfiguration()
            configuration.pipelinedSync = false
            let store = try AuditStore(path: path, configuration: configuration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let id = String(format: "F%05d", index)
                        try await store.begin(sampleEntry(id))
                        try await store.finish(id, sampleCompletion())
                    }
                }
                try await group.waitForAll()
            }
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded'") == [[.integer(200)]])
            #expect(store.statistics.operations == 400)
            await store.close()
            let database = try SQLiteDatabase(path: path)
            #expect(try database.rows("PRAGMA integrity_check") == [[.text("ok")]])
        }
    }

    @Test func pipelinedSyncWritesEveryPairAndLeavesASoundFile() async throws {
        try await withTemporaryAudit { path in
            let syncs = Mutex(0)
            var configuration = AuditStoreConfiguration()
            configuration.beforeWALSync = { syncs.withLock { $0 += 1 } }
            let store = try AuditStore(path: path, configuration: configuration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<500 {
                    group.addTask {
                        let id = String(format: "N%05d", index)
                        try await store.begin(sampleEntry(id))
                        try await store.finish(id, sampleCompletion())
                    }
                }
                try await group.waitForAll()
            }
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded'") == [[.integer(500)]])
            #expect(try store.reader.query("SELECT count(*) FROM findings") == [[.integer(1_500)]])
            // Every acknowledged transaction went through a sync; syncs cover several at once.
            #expect(syncs.withLock { $0 } >= 1)
            #expect(syncs.withLock { $0 } <= store.statistics.transactions)
            await store.close()
            let database = try SQLiteDatabase(path: path)
            #expect(try database.rows("PRAGMA integrity_check") == [[.text("ok")]])
        }
    }
}
