import Foundation
import Synchronization
import Testing
@testable import PushBridgeServer

/// An event loop that finds the audit writer idle commits its lone operation itself (issue 31,
/// item 3: fewer wakes; `AuditWriter+Loop.swift`): no wake of the writer thread and no wake of
/// the parked loop by its acknowledgement, with the same durability (the caller resumes only
/// after the sync) and the same group commit for whatever queues meanwhile.
struct AuditLoopCommitTests {
    /// Records where each WAL sync ran, and holds the syncs once armed until opened.
    final class SyncProbe: Sendable {
        private let armed = Mutex(false)
        private let semaphore = DispatchSemaphore(value: 0)
        /// The name of the loop each sync ran on ("-" for a thread that is no loop).
        let threads = Mutex<[String]>([])
        /// Syncs held so far.
        let held = Mutex(0)
        func pass() {
            threads.withLock { $0.append(EventLoop.current?.name ?? "-") }
            guard armed.withLock({ $0 }) else { return }
            held.withLock { $0 += 1 }
            semaphore.wait()
            semaphore.signal()
        }
        func arm() { armed.withLock { $0 = true } }
        func open() { semaphore.signal() }
    }

    /// A store whose syncs go through `probe`, a loop committing when the last transaction took
    /// less than `limit`, however loaded the machine running the test is.
    private static func store(_ path: String, _ probe: SyncProbe, limit: Duration?, needsSpareCPU: Bool = false) throws -> AuditStore {
        var configuration = AuditStoreConfiguration()
        configuration.beforeWALSync = { probe.pass() }
        configuration.loopCommitLimit = limit
        configuration.loopCommitNeedsSpareCPU = needsSpareCPU
        return try AuditStore(path: path, configuration: configuration)
    }

    /// Waits until the writer thread sleeps with nothing queued (as it does between requests).
    private static func writerIdle(_ store: AuditStore) async -> Bool {
        await eventually(10) { store.writer.state.withLock { $0.sleeping && !$0.committing && $0.ready.isEmpty } }
    }

    /// Requests one after another on one loop (one connection): each begin and finish is
    /// synced on the loop's own thread, and the loop is never woken from outside for them (on
    /// the writer thread it was woken once per acknowledgement it parked for).
    @Test func aLoneRequestCommitsOnItsLoopWithoutAWake() async throws {
        try await withTemporaryAudit { path in
            let probe = SyncProbe()
            // A limit no loaded machine reaches: the test is about where, not how fast.
            let store = try Self.store(path, probe, limit: .seconds(600))
            let loop = EventLoop(name: "pb-own-commit")
            defer { loop.shutdown() }
            #expect(await Self.writerIdle(store), "the writer never went idle")
            let requests = 5
            let wakes = try await Task(executorPreference: loop) { () -> Int in
                let before = loop.wakes.load(ordering: .relaxed)
                for index in 0..<requests {
                    let id = "OWN\(index)"
                    try await store.begin(sampleEntry(id))
                    try await store.finish(id, sampleCompletion())
                }
                return loop.wakes.load(ordering: .relaxed) - before
            }.value
            #expect(probe.threads.withLock { $0 } == Array(repeating: loop.name, count: 2 * requests),
                    "syncs ran on \(probe.threads.withLock { $0 }), not all on the loop")
            #expect(wakes == 0, "\(requests) requests woke their loop \(wakes) times")
            #expect(store.statistics.committedOnLoops == 2 * requests)
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded' AND request_id LIKE 'OWN%'")
                    == [[.integer(Int64(requests))]])
            await store.close()
        }
    }

    /// A loop's own commit answers its caller only after the sync, and an operation submitted
    /// meanwhile (from another thread) queues for the writer thread, which it wakes once the
    /// loop gives the engine back: both commit, in two transactions.
    @Test func aLoopCommitIsDurableBeforeItsCallerResumesAndOthersQueue() async throws {
        try await withTemporaryAudit { path in
            let probe = SyncProbe()
            let store = try Self.store(path, probe, limit: .seconds(600))
            let loop = EventLoop(name: "pb-own-hold")
            defer { loop.shutdown() }
            #expect(await Self.writerIdle(store), "the writer never went idle")
            let first = store.statistics.transactions
            probe.arm()
            let returned = Mutex(false)
            let onLoop = Task(executorPreference: loop) {
                try await store.record(sampleEntry("HELD1"), sampleCompletion())
                returned.withLock { $0 = true }
            }
            #expect(await eventually(10) { probe.held.withLock { $0 } == 1 }, "the loop's sync was never reached")
            // Committed (another connection sees it), not yet durable: the caller waits.
            #expect(await eventually(10) { (try? store.reader.query("SELECT count(*) FROM requests WHERE request_id = 'HELD1'")) == [[.integer(1)]] })
            #expect(returned.withLock { $0 } == false, "the caller resumed before its commit was synced")
            let other = Task { try await store.record(sampleEntry("QUEUED1"), sampleCompletion()) }
            #expect(await eventually(10) { store.queueDepth == 1 }, "the other operation never queued")
            probe.open()
            try await onLoop.value
            try await other.value
            #expect(returned.withLock { $0 })
            #expect(probe.threads.withLock { $0 } == [loop.name, "-"], "syncs ran on \(probe.threads.withLock { $0 })")
            #expect(store.statistics.transactions - first == 2)
            #expect(store.statistics.committedOnLoops == 1)
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE request_id IN ('HELD1', 'QUEUED1')") == [[.integer(2)]])
            await store.close()
        }
    }

    /// A batch of several operations (load) sends the next operation through the writer thread;
    /// once the writer commits one alone again, a loop commits its own.
    @Test func aBatchOfSeveralSendsTheNextOperationToTheWriter() async throws {
        try await withTemporaryAudit { path in
            let probe = SyncProbe()
            let store = try Self.store(path, probe, limit: .seconds(600))
            let loop = EventLoop(name: "pb-own-load")
            defer { loop.shutdown() }
            #expect(await Self.writerIdle(store), "the writer never went idle")
            probe.arm()
            let hold = Task { try await store.record(sampleEntry("LOAD-HOLD"), sampleCompletion()) }
            #expect(await eventually(10) { probe.held.withLock { $0 } == 1 }, "the writer's sync was never reached")
            let queued = (0..<2).map { index in Task { try await store.record(sampleEntry("LOAD\(index)"), sampleCompletion()) } }
            #expect(await eventually(10) { store.queueDepth == 2 }, "the two operations never queued")
            probe.open()
            try await hold.value
            for task in queued { try await task.value }
            #expect(await Self.writerIdle(store), "the writer never went idle")
            for index in 0..<2 {
                try await Task(executorPreference: loop) {
                    try await store.record(sampleEntry("LOAD-LOOP\(index)"), sampleCompletion())
                }.value
                #expect(await Self.writerIdle(store), "the writer never went idle")
            }
            #expect(probe.threads.withLock { $0 } == ["-", "-", "-", loop.name], "syncs ran on \(probe.threads.withLock { $0 })")
            #expect(store.statistics.largestBatch == 2)
            #expect(store.statistics.committedOnLoops == 1)
            await store.close()
        }
    }

    /// A transaction slower than the limit sends the next operations through the writer thread
    /// (a loop must not block again on a stalling disk or a locked file); with no limit, a loop
    /// never commits.
    @Test(arguments: [Duration.zero, nil])
    func aSlowTransactionSendsTheNextOnesToTheWriter(limit: Duration?) async throws {
        try await withTemporaryAudit { path in
            let probe = SyncProbe()
            let store = try Self.store(path, probe, limit: limit)
            let loop = EventLoop(name: "pb-own-slow")
            defer { loop.shutdown() }
            #expect(await Self.writerIdle(store), "the writer never went idle")
            try await Task(executorPreference: loop) {
                for index in 0..<3 {
                    try await store.record(sampleEntry("SLOW\(index)"), sampleCompletion())
                }
            }.value
            let expected = limit == nil ? ["-", "-", "-"] : [loop.name, "-", "-"]
            #expect(probe.threads.withLock { $0 } == expected)
            #expect(store.statistics.committedOnLoops == (limit == nil ? 0 : 1))
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE request_id LIKE 'SLOW%'") == [[.integer(3)]])
            await store.close()
        }
    }

    /// A loop commits its own operation only when it serves no other request (issue 31, item 3:
    /// loop commits that cost 16 connections 5–15 % of their requests per second, because the
    /// loop's other connections waited through its `fdatasync`). A real server on one loop: a
    /// request alone is committed on the loop; a request beside one whose handler is still
    /// running on the same loop goes to the writer thread; alone again, on the loop again.
    @Test func aLoopServingAnotherRequestLeavesItsCommitToTheWriter() async throws {
        try await withTemporaryAudit { path in
            let probe = SyncProbe()
            let store = try Self.store(path, probe, limit: .seconds(600))
            let gate = AsyncGate()
            let holding = Atomic(false)
            var configuration = HTTPServerConfiguration()
            configuration.threadCount = 1
            let server = try HTTPServer(configuration: configuration) { request in
                if request.target == "/hold" {
                    holding.store(true, ordering: .releasing)
                    await gate.wait()
                    return HTTPResponse(status: 204)
                }
                let id = String(request.target.dropFirst("/record/".count))
                do {
                    try await store.record(sampleEntry(id), sampleCompletion())
                    return HTTPResponse(status: 200)
                } catch {
                    return HTTPResponse(status: 503, body: Array("\(error)".utf8))
                }
            }
            let loop = server.loops[0]
            let record = { (id: String) async throws -> Int in
                try await RawHTTPClient.send(port: server.port, method: "POST", target: "/record/\(id)").status
            }
            #expect(await Self.writerIdle(store), "the writer never went idle")
            #expect(try await record("ALONE1") == 200)
            #expect(probe.threads.withLock { $0 } == [loop.name], "syncs ran on \(probe.threads.withLock { $0 })")

            #expect(await Self.writerIdle(store), "the writer never went idle")
            let held = Task { try await RawHTTPClient.send(port: server.port, method: "POST", target: "/hold").status }
            #expect(await eventually(10) { holding.load(ordering: .acquiring) }, "the held request never reached its handler")
            #expect(try await record("BESIDE1") == 200)
            #expect(probe.threads.withLock { $0 } == [loop.name, "-"],
                    "with another request in flight on the loop, syncs ran on \(probe.threads.withLock { $0 })")
            #expect(store.statistics.committedOnLoops == 1)
            gate.open()
            #expect(try await held.value == 204)

            #expect(await eventually(10) { loop.exchangesOpen.load(ordering: .relaxed) == 0 }, "the held request never completed")
            #expect(await Self.writerIdle(store), "the writer never went idle")
            #expect(try await record("ALONE2") == 200)
            #expect(probe.threads.withLock { $0 } == [loop.name, "-", loop.name], "syncs ran on \(probe.threads.withLock { $0 })")
            #expect(store.statistics.committedOnLoops == 2)
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE request_id IN ('ALONE1', 'BESIDE1', 'ALONE2')") == [[.integer(3)]])
            await server.stop()
            await store.close()
        }
    }

    /// A loop whose thread found the CPU scarce (``EventLoop/hasCPUToSpare``: on a saturated
    /// host one thread doing a request's work waited twice as long for a CPU) leaves its lone
    /// commit to the writer thread; with the CPU to spare, it commits it itself.
    @Test func aLoopShortOfCPULeavesItsCommitToTheWriter() async throws {
        try await withTemporaryAudit { path in
            let probe = SyncProbe()
            let store = try Self.store(path, probe, limit: .seconds(600), needsSpareCPU: true)
            let loop = EventLoop(name: "pb-own-cpu")
            defer { loop.shutdown() }
            for scarce in [true, false] {
                #expect(await Self.writerIdle(store), "the writer never went idle")
                try await Task(executorPreference: loop) {
                    // A reading dated ahead, so the loop keeps this verdict however slow the machine.
                    loop.cpuSample = CPUWaitSample(at: .now.advanced(by: .seconds(3600)), waitedNs: 0, slices: 0)
                    loop.cpuScarce = scarce
                    try await store.record(sampleEntry("CPU-\(scarce)"), sampleCompletion())
                }.value
            }
            #expect(probe.threads.withLock { $0 } == ["-", loop.name], "syncs ran on \(probe.threads.withLock { $0 })")
            #expect(store.statistics.committedOnLoops == 1)
            await store.close()
        }
    }
}
