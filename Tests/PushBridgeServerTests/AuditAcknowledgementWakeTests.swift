import Foundation
import Synchronization
import Testing
@testable import PushBridgeServer

/// Acknowledgements of one writer batch resume their requests with one wake per loop (issue 31,
/// item 3): the writer hands each loop the batch's resumed tasks at once
/// (``EventLoop/gatheringJobs(_:)``), instead of one push each, every one of which could find
/// the loop parked again and wake it once more.
struct AuditAcknowledgementWakeTests {
    /// Holds the writer in its WAL sync (``AuditStoreConfiguration/beforeWALSync``) once armed,
    /// until opened.
    final class SyncHold: Sendable {
        private let armed = Mutex(false)
        private let semaphore = DispatchSemaphore(value: 0)
        /// Syncs held so far.
        let reached = Mutex(0)
        /// Called before each sync: waits while armed and not yet opened.
        func pass() {
            guard armed.withLock({ $0 }) else { return }
            reached.withLock { $0 += 1 }
            semaphore.wait()
            semaphore.signal()
        }
        /// Holds the next sync.
        func arm() { armed.withLock { $0 = true } }
        /// Lets every sync through from now on.
        func open() { semaphore.signal() }
    }

    /// Holds the writer in the sync of a first batch (``AuditStoreConfiguration/beforeWALSync``),
    /// runs `queue`, waits until `operations` operations are queued behind the held batch (so
    /// they land in the next batch, whole), runs `queued`, then lets the writer go.
    private static func oneBatch(_ store: AuditStore, gate: SyncHold, operations: Int,
                                 queue: () -> Void, queued: () -> Void) async throws {
        gate.arm()
        let hold = Task { try await store.record(sampleEntry("HOLD"), sampleCompletion()) }
        #expect(await eventually(10) { gate.reached.withLock { $0 } >= 1 }, "the writer never reached its sync")
        queue()
        #expect(await eventually(10) { store.queueDepth == operations }, "the operations never all queued behind the held batch")
        queued()
        gate.open()
        try await hold.value
    }

    /// A store whose WAL sync waits at `gate` once it is armed.
    private static func gatedStore(_ path: String, _ gate: SyncHold) throws -> AuditStore {
        var configuration = AuditStoreConfiguration()
        configuration.beforeWALSync = { gate.pass() }
        return try AuditStore(path: path, configuration: configuration)
    }

    /// Tasks on two loops whose completions land in one batch, acknowledged slowly (each reply
    /// waits until its loop sleeps, as it does once it has run the previous resume): one push
    /// per resume woke each loop once per request; now each loop wakes once.
    @Test func aBatchAcknowledgedSlowlyWakesEachLoopOnce() async throws {
        try await withTemporaryAudit { path in
            let gate = SyncHold()
            let store = try Self.gatedStore(path, gate)
            let loops = [EventLoop(name: "pb-ack-a"), EventLoop(name: "pb-ack-b")]
            defer { for loop in loops { loop.shutdown() } }
            let perLoop = 6
            let ids = loops.indices.map { number in (0..<perLoop).map { "SLOW-\(number)-\($0)" } }
            for id in ids.joined() { try await store.begin(sampleEntry(id)) }
            let first = store.statistics.transactions
            let tasks = Mutex<[Task<Bool, Never>]>([])
            let before = Mutex<[Int]>([])
            try await Self.oneBatch(store, gate: gate, operations: 2 * perLoop, queue: {
                for (number, loop) in loops.enumerated() {
                    for id in ids[number] {
                        let task = Task(executorPreference: loop) { () -> Bool in
                            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                                store.finish(id, sampleCompletion()) { result in
                                    // A slow acknowledger: the loop has run every earlier resume.
                                    _ = LoopWakeTests.waitUntilThreadSleeps(loop.name, seconds: 2)
                                    continuation.resume(returning: (try? result.get()) != nil)
                                }
                            }
                        }
                        tasks.withLock { $0.append(task) }
                    }
                }
            }, queued: {
                for loop in loops { _ = LoopWakeTests.waitUntilThreadSleeps(loop.name, seconds: 5) }
                before.withLock { $0 = loops.map { $0.wakes.load(ordering: .relaxed) } }
            })
            var finished = 0
            for task in tasks.withLock({ $0 }) where await task.value { finished += 1 }
            #expect(finished == 2 * perLoop)
            let transactions = store.statistics.transactions - first
            #expect(transactions == 2, "the completions did not land in one batch: \(transactions) transactions")
            for (index, loop) in loops.enumerated() {
                let wakes = loop.wakes.load(ordering: .relaxed) - before.withLock { $0[index] }
                #expect(wakes <= 1, "one batch of \(perLoop) acknowledgements woke \(loop.name) \(wakes) times")
            }
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded' AND request_id LIKE 'SLOW-%'")
                    == [[.integer(Int64(2 * perLoop))]])
            await store.close()
        }
    }

    /// The request path's own writes (``AuditStore/begin(_:ledger:)``, resumed through their
    /// continuations): requests on one loop whose intents commit in one batch resume in at most
    /// one wake, and every row is there.
    @Test func intentsOfOneBatchResumeTheirLoopInOneWake() async throws {
        try await withTemporaryAudit { path in
            let gate = SyncHold()
            let store = try Self.gatedStore(path, gate)
            let loop = EventLoop(name: "pb-ack-begin")
            defer { loop.shutdown() }
            let requests = 16
            let first = store.statistics.transactions
            let tasks = Mutex<[Task<Bool, Never>]>([])
            let before = Mutex(0)
            try await Self.oneBatch(store, gate: gate, operations: requests, queue: {
                for index in 0..<requests {
                    let task = Task(executorPreference: loop) { () -> Bool in
                        (try? await store.begin(sampleEntry(String(format: "BEGIN%03d", index)))) != nil
                    }
                    tasks.withLock { $0.append(task) }
                }
            }, queued: {
                _ = LoopWakeTests.waitUntilThreadSleeps(loop.name, seconds: 5)
                before.withLock { $0 = loop.wakes.load(ordering: .relaxed) }
            })
            var begun = 0
            for task in tasks.withLock({ $0 }) where await task.value { begun += 1 }
            #expect(begun == requests)
            let transactions = store.statistics.transactions - first
            #expect(transactions == 2, "the intents did not land in one batch: \(transactions) transactions")
            let wakes = loop.wakes.load(ordering: .relaxed) - before.withLock { $0 }
            #expect(wakes <= 1, "\(requests) intents of one batch woke their loop \(wakes) times")
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'pending'") == [[.integer(Int64(requests))]])
            await store.close()
        }
    }
}

extension AuditAcknowledgementWakeTests {
    /// A task a gathering resumes on a loop that stopped meanwhile still runs to its end (on
    /// Dispatch, as one resumed alone after a stop does), and is not lost with the gathering.
    @Test func aTaskGatheredForAStoppedLoopStillFinishes() async {
        let loop = EventLoop(name: "pb-ack-stop")
        let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let task = Task(executorPreference: loop) { () -> Bool in
            await withCheckedContinuation { continuation in waiting.withLock { $0 = continuation } }
            return EventLoop.current == nil
        }
        #expect(await eventually(10) { waiting.withLock { $0 != nil } }, "the task never suspended")
        loop.shutdown()
        EventLoop.gatheringJobs { waiting.withLock { $0.take() }?.resume() }
        #expect(await task.value, "the resumed task did not run off its stopped loop")
    }
}
