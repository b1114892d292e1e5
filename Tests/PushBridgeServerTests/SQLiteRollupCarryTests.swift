import Foundation
import PushBridgeCore
import Synchronization
import Testing
@testable import PushBridgeServer

/// Issue 30, "SQLite rollups carried": the SQLite writer carries rollup counters in memory
/// while it is busy (operations queued behind its batch, or a commit waiting for its sync) and
/// writes each touched counter row with a later batch, at most once per interval
/// (``AuditRollupCarry``), behind marks its start-up recovery recounts from
/// (``AuditRollupMarkSchema``, SQLite migration 21). Callers are answered once their own commit
/// is durable, never held for the carry; readers in the process ask the writer to write it first
/// (``AuditRollupBarrier``). The rollups still equal the log, compared by the report, readiness
/// and the admin page read from them and from the rows (``ReportRollupTests/compare(_:path:_:)``):
/// right after traffic, after a crash that left counters unwritten (recounted under another
/// instance name), and before pruning.
@Suite(.serialized) struct SQLiteRollupCarryTests {
    /// The rollup marks the SQLite audit at `path` holds.
    static func marks(_ path: String) throws -> Int64 {
        try SQLiteDatabase(path: path).rows("SELECT count(*) FROM rollup_marks").first?.first?.integerValue ?? -1
    }

    /// Holds the WAL syncs (``AuditStoreConfiguration/beforeWALSync``) once armed: the first,
    /// the writer's own, until ``openWriter()``; every later one (the syncer's) until ``openSyncer()``.
    final class SyncHolds: Sendable {
        private let armed = Mutex(false)
        private let calls = Mutex(0)
        private let writer = DispatchSemaphore(value: 0)
        private let syncer = DispatchSemaphore(value: 0)
        /// Syncs reached since armed.
        var reached: Int { calls.withLock { $0 } }
        /// Called before each sync.
        func pass() {
            guard armed.withLock({ $0 }) else { return }
            let gate = calls.withLock { $0 += 1; return $0 } == 1 ? writer : syncer
            gate.wait()
            gate.signal()
        }
        func arm() { armed.withLock { $0 = true } }
        func openWriter() { writer.signal() }
        func openSyncer() { syncer.signal() }
    }

    /// Eight callers queued behind a batch held in its sync: each of their batches (one
    /// operation each) carries its counters, the syncs held until the writer has written the
    /// last one and gone idle. Every caller is then answered after its own sync, with the
    /// carry still unwritten (no later commit: the idle writer waits a minute here before it
    /// would write it alone), as a reader in another process sees it; a report in this process
    /// asks for it first and reads exact figures. Fails on `main` (nothing carried) and on the
    /// first try (branch `sqlcarry`: the last carried batch's callers were answered only after
    /// the writer wrote the carry alone for them).
    @Test func callersAreAnsweredAfterTheirOwnSyncNotAfterTheCarry() async throws {
        try await withTemporaryAudit { path in
            let holds = SyncHolds()
            var configuration = AuditStoreConfiguration()
            configuration.instanceName = "ack-a"
            configuration.maxBatchSize = 1
            configuration.maxUnsyncedBatches = 16
            configuration.sqliteRollupIdle = .seconds(60)
            configuration.sqliteRollupInterval = .seconds(60)
            configuration.beforeWALSync = { holds.pass() }
            let store = try AuditStore(path: path, configuration: configuration)
            let callers = 8
            holds.arm()
            let held = Task { try await store.record(sampleEntry("HELD"), sampleCompletion()) }
            #expect(await eventually(10) { holds.reached >= 1 }, "the writer never reached its sync")
            let tasks = (1...callers).map { i in Task { try await store.record(sampleEntry("ACK-\(i)"), sampleCompletion()) } }
            #expect(await eventually(10) { store.queueDepth == callers }, "the callers never all queued behind the held batch")
            holds.openWriter()
            try await held.value
            #expect(await eventually(10) { store.statistics.carriedRollups == callers }, "\(store.statistics)")
            #expect(await eventually(10) { store.writer.state.withLock { $0.sleeping && !$0.committing && $0.ready.isEmpty } })
            holds.openSyncer()
            for task in tasks { try await task.value }
            // Every caller answered; nothing committed after their batches.
            let statistics = store.statistics
            #expect(statistics.transactions == callers + 1, "\(statistics)")
            #expect(statistics.carriedRollups < statistics.transactions, "\(statistics)")
            #expect(try Self.marks(path) == 1, "the carry was written before the callers were answered")
            let outside = try RollupRecoveryTests.counts(AuditReader.rowsOnly(path))
            #expect(outside.rollups != outside.rows, "the rollups already held the carried counters")
            // In this process, readiness and the report ask for the carry first; the reader names
            // the file another way than the store (`dir/../dir/./audit.sqlite`) and finds its writer
            // all the same (fails on the map keyed by the path's text, `87e07f8`: marks stay 1).
            let file = URL(fileURLWithPath: path)
            let directory = file.deletingLastPathComponent()
            let spelling = directory.path + "/../" + directory.lastPathComponent + "/./" + file.lastPathComponent
            #expect(spelling != path)
            let reader = try AuditReader(path: spelling)
            _ = try reader.readiness()
            #expect(try Self.marks(path) == 0)
            let inside = try RollupRecoveryTests.counts(reader)
            #expect(inside.rollups == inside.rows)
            try ReportRollupTests.compare(reader, path: spelling, "carried, asked for")
            await store.close()
        }
    }

    /// Thirty-two callers at once: batches carry their counters while others are queued or a
    /// commit waits for its sync; a reader in this process reads the rollups right after the
    /// last answer and finds exactly what the rows give (the report, readiness, the admin page).
    @Test func busyCallersCarryTheirCountersAndReadersInTheProcessReadThemExact() async throws {
        try await withTemporaryAudit { path in
            let store = try RollupCarryTests.store(path, "carry-a")
            try await RollupCarryTests.writeConcurrently(store, 0..<ReportRollupTests.rows, lanes: 32)
            let statistics = store.statistics
            #expect(statistics.carriedRollups > 0, "no batch carried its counters: \(statistics)")
            // Every batch may have carried (each found another commit out or callers queued):
            // the counters are then written by the idle writer or for the reader below, so no
            // bound on the carried share holds here (the held test above pins it).
            let reader = try AuditReader(path: path)
            _ = try reader.readiness()
            #expect(try Self.marks(path) == 0, "the carried counters were not written for the reader")
            try ReportRollupTests.compare(reader, path: path, "carried, answered")
            await store.close()
            try ReportRollupTests.compare(reader, path: path, "carried, closed")
        }
    }

    /// One caller after another: nothing is ever queued behind a batch, so nothing is carried
    /// and every answer finds its counters written.
    @Test func sequentialCallersNeverCarry() async throws {
        try await withTemporaryAudit { path in
            let store = try RollupCarryTests.store(path, "seq-a")
            for i in 0..<40 {
                try await ReportRollupTests.write(store, row: i, of: 40)
                let (rollups, rows) = try RollupRecoveryTests.counts(store.reader)
                #expect(rollups == rows, "after row \(i)")
            }
            #expect(store.statistics.carriedRollups == 0)
            await store.close()
        }
    }

    /// A crash while counters are carried: the log has rows the rollups lack (and completions
    /// of intents written before, whose minutes are older). The next start, under another
    /// instance name (the default one changes with the process id), recounts the dead writer's
    /// rows from its earliest mark before it moves its in-flight rows to `unknown`.
    @Test func aCrashWithCarriedCountersIsRecountedAtTheNextStart() async throws {
        try await withTemporaryAudit { path in
            let rows = ReportRollupTests.rows
            let reader = try await RollupCarryTests.crashWithCarriedCounters(path, first: "crash-a", crashing: "crash-b",
                                                                             leftMarks: { _ in try Self.marks(path) })
            let restarted = try RollupCarryTests.store(path, "crash-c")
            await restarted.close()
            #expect(try Self.marks(path) == 0)
            let after = try RollupRecoveryTests.counts(reader)
            #expect(after.rollups == after.rows)
            try ReportRollupTests.compare(reader, path: path, "crash recounted")
            #expect(try reader.report().upstream.outcomes.contains(Count("unknown", rows / 25 - 2)))
        }
    }

    /// A mark is written when the carry starts and when it reaches back to an earlier received
    /// time, not with every carried batch; the recount starts from the earliest.
    @Test func aCarryIsMarkedOnceUntilItReachesBackEarlier() async throws {
        try await withTemporaryAudit { path in
            let store = try RollupCarryTests.store(path, "mark-a", holding: true)
            let base: Int64 = 1_700_000_000_000
            for i in 0..<10 { try await store.record(sampleEntry("M-\(i)", receivedAt: base + 60_000 * Int64(i)), sampleCompletion()) }
            #expect(try Self.marks(path) == 1)
            #expect(store.statistics.carriedRollups == 10)
            try await store.record(sampleEntry("EARLIER", receivedAt: base - 3_600_000), sampleCompletion())
            try await store.record(sampleEntry("LATER", receivedAt: base + 3_600_000), sampleCompletion())
            #expect(try Self.marks(path) == 2)
            let reader = try AuditReader(path: path)
            #expect(try RollupRecoveryTests.counts(reader).rollups == [], "the held counters were written")
            await store.close()
            let reopened = try RollupCarryTests.store(path, "mark-b")
            await reopened.close()
            #expect(try RollupRecoveryTests.counts(reader) == (["forwarded=12"], ["forwarded=12"]))
            try HourlyRollupTests.expectHoursAreTheirMinutes(reader, "recounted from the earliest mark")
        }
    }

}
