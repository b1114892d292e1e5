import Foundation
import PushBridgeCore
import Synchronization
import Testing
@testable import PushBridgeServer

/// Retention yields to the request path: on SQLite a prune batch runs in a transaction of its
/// own after the request rows queued with it, and still runs under steady traffic; on
/// PostgreSQL it runs on retention's own connection, beside a writer batch that is held up.
@Suite(.serialized)
struct AuditRetentionYieldTests {
    static let day: Int64 = 86_400_000

    @Test func requestRowsQueuedWithAPruneAreDurableBeforeItAndItsDeleteRunsAlone() async throws {
        try await withTemporaryAudit { path in
            let now = AuditClock.nowMilliseconds()
            let old = (0..<300).map { "old-\($0)" }
            try await AuditRetentionTests.seed(path, ids: old, receivedAt: now - 40 * Self.day)
            let reader = try AuditReader(path: path)
            let gate = AuditPipelinedSyncTests.Gate()
            // Each durable transaction: how many operations it held, and how many old rows were
            // left once it was durable.
            let commits = Mutex<[[Int64]]>([])
            var configuration = AuditStoreConfiguration()
            configuration.beforeWALSync = { gate.pass() }
            configuration.onCommit = { sample in
                let left = (try? AuditRetentionTests.count(reader, "SELECT count(*) FROM requests WHERE request_id LIKE 'old-%'")) ?? -1
                commits.withLock { $0.append([Int64(sample.batchSize), left]) }
            }
            let store = try AuditStore(path: path, configuration: configuration)
            // A lone row holds the writer at its sync, while a prune of every old row and then 20
            // request rows queue behind it.
            let plug = Task { try await store.record(sampleEntry("plug", receivedAt: now), sampleCompletion(finishedAt: now + 5)) }
            #expect(await eventually(10) { gate.reached.withLock { $0 } >= 1 }, "the first sync never reached the gate")
            let prune = Task { try await store.submit(.prune(requestIds: old)) }
            #expect(await eventually(10) { store.queueDepth == 1 })
            let requests = (0..<20).map { index in
                Task { try await store.record(sampleEntry("new-\(index)", receivedAt: now), sampleCompletion(finishedAt: now + 5)) }
            }
            #expect(await eventually(10) { store.queueDepth == 21 }, "queued: \(store.queueDepth)")
            gate.open()
            try await plug.value
            for request in requests { try await request.value }
            try await prune.value
            await store.close()

            // The 20 request rows were one transaction, durable while every old row was still
            // there; the delete came after, alone.
            #expect(commits.withLock { $0 } == [[1, 300], [20, 300], [1, 0]])
            #expect(try AuditRetentionTests.count(reader, "SELECT count(*) FROM requests WHERE request_id LIKE 'new-%'") == 20)
            #expect(try AuditRetentionTests.count(reader, "SELECT count(*) FROM findings WHERE request_id LIKE 'old-%'") == 0)
        }
    }

    @Test func underSteadyRequestsAQueuedPruneWaitsForTwoRequestBatchesAtMost() {
        let writer = AuditWriter(configuration: AuditStoreConfiguration())
        let taken = Mutex<[String]>([])
        func operation(_ work: AuditOperation.Work) -> AuditOperation {
            AuditOperation(work: work, submitted: .now, reply: { _ in })
        }
        func label(_ batch: [AuditOperation]?) -> String {
            (batch ?? []).map { operation in
                switch operation.work {
                case .prune(let ids): "prune(\(ids.count))"
                case .finish(let id, _, _): id
                default: "other"
                }
            }.joined(separator: "+")
        }
        writer.submit(operation(.prune(requestIds: ["a", "b"])))
        writer.submit(operation(.prune(requestIds: ["c"])))
        // A request arrives before each batch is taken: the queue is never empty of requests.
        for index in 0..<6 {
            writer.submit(operation(.finish(requestId: "r\(index)", values: [])))
            taken.withLock { $0.append(label(writer.nextBatch())) }
            writer.batchDone()
        }
        #expect(taken.withLock { $0 } == ["r0", "r1", "prune(2)", "r2+r3", "r4", "prune(1)"])
        // The request left behind goes next; then, with nothing queued, an empty batch (the
        // writer sleeps).
        #expect(label(writer.nextBatch()) == "r5")
        writer.batchDone()
        #expect(writer.nextBatch()?.isEmpty == true)
        writer.requestStop()
        #expect(writer.nextBatch() == nil)
    }

    @Test func onPostgreSQLAPruneRunsBesideAWriterBatchHeldByARowLock() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let now = AuditClock.nowMilliseconds()
        let store = try AuditStore(path: uri)
        for index in 0..<50 {
            try await store.record(sampleEntry("old-\(index)", receivedAt: now - 40 * Self.day), sampleCompletion(finishedAt: now - 40 * Self.day + 5))
        }
        try await store.begin(sampleEntry("held", receivedAt: now))
        let locker = try PostgresConnection(uri)
        _ = try locker.execute("BEGIN")
        // The same completion, not committed: the writer's insert of it waits on that row.
        _ = try locker.execute("INSERT INTO request_outcomes (request_id, received_at, outcome) VALUES ('held', $1, 'failed')", [String(now)])
        let finished = Mutex(false)
        let finish = Task {
            try await store.finish("held", sampleCompletion(finishedAt: now + 5))
            finished.withLock { $0 = true }
        }
        #expect(await eventually(10) {
            (try? PostgresConnection(uri).execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'").value(0, 0)) == "1"
        }, "the writer's batch never waited for the row lock")

        let retention = try AuditRetention(store: store, settings: AuditRetention.Settings(retentionDays: 30), clock: ManualDeliveryClock(startMilliseconds: now))
        let pruned = Mutex<Int?>(nil)
        let pass = Task { let count = try await retention.pruneOnce(); pruned.withLock { $0 = count } }
        let prunedWhileHeld = await eventually(15) { pruned.withLock { $0 } != nil }
        let finishedWhilePruning = finished.withLock { $0 }
        _ = try locker.execute("ROLLBACK")
        try await pass.value
        try await finish.value
        await store.close()

        #expect(prunedWhileHeld, "the prune waited for the writer's held batch")
        #expect(pruned.withLock { $0 } == 50)
        #expect(!finishedWhilePruning, "the held batch must still have been waiting when the prune finished")
        let observer = try PostgresConnection(uri)
        #expect(try observer.execute("SELECT count(*) FROM requests WHERE request_id LIKE 'old-%'").value(0, 0) == "0")
        #expect(try observer.execute("SELECT count(*) FROM findings WHERE request_id LIKE 'old-%'").value(0, 0) == "0")
        #expect(try observer.execute("SELECT outcome FROM requests WHERE request_id = 'held'").value(0, 0) == "forwarded")
    }
}

/// The WAL is checkpointed on a thread of its own: request rows keep committing while a
/// checkpoint runs, and the checkpoint still happens.
struct AuditCheckpointerTests {
    @Test func rowsKeepCommittingWhileACheckpointIsHeld() async throws {
        try await withTemporaryAudit { path in
            let gate = AuditPipelinedSyncTests.Gate()
            var configuration = AuditStoreConfiguration()
            configuration.walAutocheckpointPages = 20
            configuration.beforeCheckpoint = { gate.pass() }
            let store = try AuditStore(path: path, configuration: configuration)
            // Rows until the WAL passes 20 pages and a checkpoint starts (and is held).
            var written = 0
            while gate.reached.withLock({ $0 }) == 0 && written < 2_000 {
                try await store.record(sampleEntry("fill-\(written)"), sampleCompletion())
                written += 1
            }
            #expect(gate.reached.withLock { $0 } == 1, "no checkpoint started after \(written) rows")
            // While it is held, 100 more rows commit and return.
            for index in 0..<100 {
                try await store.record(sampleEntry("during-\(index)"), sampleCompletion())
            }
            let committedWhileHeld = try store.reader.query("SELECT count(*) FROM requests WHERE request_id LIKE 'during-%'")
            let fileWhileHeld = Self.size(path)
            gate.open()
            // Once released, the checkpoint copies the WAL's rows into the audit file itself.
            let copied = await eventually(10) { Self.size(path) > fileWhileHeld }
            await store.close()
            #expect(committedWhileHeld == [[.integer(100)]])
            #expect(copied, "the WAL was not checkpointed into the file once the checkpoint was released")
            #expect(try SQLiteDatabase(path: path).rows("SELECT count(*) FROM requests") == [[.integer(Int64(written + 100))]])
        }
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
