import Foundation
import PushBridgeCore
import Synchronization
import Testing
@testable import PushBridgeServer

/// Issue 30, "PostgreSQL CPU per request": the PostgreSQL writer carries rollup counters in
/// memory while a commit is out and writes each touched counter row once per interval
/// (``AuditRollupCarry``), behind marks recovery recounts from (``AuditRollupMarkSchema``). The
/// rollups still equal the log, compared by the report, readiness and the admin page read from
/// them and from the rows (``ReportRollupTests/compare(_:path:_:)``): after concurrent callers,
/// after a crash that left counters unwritten, and after a survivor took such an instance over.
@Suite(.serialized) struct RollupCarryTests {
    /// ``ReportRollupTests``' mix, rows `range` of `rows`, written by `lanes` callers at once
    /// (each its own rows in order, so a row's completion follows its intent).
    static func writeConcurrently(_ store: AuditStore, _ range: Range<Int>, of rows: Int = ReportRollupTests.rows, lanes: Int = 16) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    for i in range where i % lanes == lane { try await ReportRollupTests.write(store, row: i, of: rows) }
                }
            }
            try await group.waitForAll()
        }
    }

    /// The rollup marks `instance` has in the audit at `uri`.
    static func marks(_ uri: String, _ instance: String) throws -> Int64 {
        let value = try PostgresConnection(uri).execute("SELECT count(*) FROM rollup_marks WHERE instance_name = $1", [instance]).rows.first?.first ?? nil
        return value.flatMap { Int64($0) } ?? -1
    }

    /// The first half of ``ReportRollupTests``' mix written by `first` (then closed), the second
    /// half by `crashing`, a store holding its counters (a crash's leftovers), and two of the
    /// first half's requests left in flight completed by `crashing`: after the second half, or
    /// before it with `completingFirst`. Returns a reader of the audit at `uri`, whose rollups
    /// lack counters, and checks that `crashing` left marks (counted by `leftMarks`, PostgreSQL's
    /// ``marks(_:_:)`` unless given: SQLite's ``SQLiteRollupCarryTests/marks(_:)``).
    static func crashWithCarriedCounters(_ uri: String, first: String, crashing: String, completingFirst: Bool = false,
                                         leftMarks: ((String) throws -> Int64)? = nil) async throws -> AuditReader {
        let (half, rows) = (ReportRollupTests.rows / 2, ReportRollupTests.rows)
        let began = try store(uri, first)
        for i in 0..<half { try await ReportRollupTests.write(began, row: i, of: rows) }
        await began.close()
        let holding = try store(uri, crashing, holding: true)
        func completeInFlight() async throws {
            for i in [0, 25] {
                let request = SyntheticTraffic.request(i, of: rows)
                try await holding.finish(request.entry.requestId, ReportRollupTests.openPushAnswer(i, request.completion))
            }
        }
        if completingFirst { try await completeInFlight() }
        try await writeConcurrently(holding, half..<rows)
        if !completingFirst { try await completeInFlight() }
        await holding.close()
        let reader = try AuditReader(path: uri)
        let before = try RollupRecoveryTests.counts(reader)
        #expect(before.rollups != before.rows, "the crash left no counters unwritten")
        #expect(try (leftMarks ?? { try marks(uri, $0) })(crashing) > 0)
        return reader
    }

    /// A store on `uri` writing as `instance`; `holding`: it never writes what it carries (a crash's leftovers).
    static func store(_ uri: String, _ instance: String, holding: Bool = false) throws -> AuditStore {
        var configuration = AuditStoreConfiguration()
        configuration.instanceName = instance
        configuration.holdsCarriedRollups = holding
        return try AuditStore(path: uri, configuration: configuration)
    }

    /// Sixteen callers at once: batches carry their counters while a commit is out, and once the
    /// writer is idle the rollups give what the rows give; again after recovery at the next start.
    @Test func concurrentCallersCountersAreCarriedAndEqualTheLog() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let store = try Self.store(uri, "carry-a")
        try await Self.writeConcurrently(store, 0..<ReportRollupTests.rows)
        #expect(store.statistics.carriedRollups > 0, "no batch carried its counters: \(store.statistics)")
        // Written when the writer found its queue empty: the marks go with them.
        #expect(try await firstValue { try Self.marks(uri, "carry-a") == 0 ? true : nil } == true, "carried counters never written")
        let reader = try AuditReader(path: uri)
        try ReportRollupTests.compare(reader, path: uri, "carried, live")
        await store.close()
        let reopened = try AuditStore(path: uri)
        await reopened.close()
        try ReportRollupTests.compare(reader, path: uri, "carried, recovered")
    }

    /// A crash while counters are carried: the log has rows the rollups lack (and completions of
    /// intents written before, whose minutes are older), and the instance's next start recounts
    /// them from its earliest mark, before it moves its in-flight rows to `unknown`.
    @Test func aCrashWithCarriedCountersIsRecountedAtTheNextStart() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let rows = ReportRollupTests.rows
        let reader = try await Self.crashWithCarriedCounters(uri, first: "crash-a", crashing: "crash-a")
        let restarted = try Self.store(uri, "crash-a")
        await restarted.close()
        #expect(try Self.marks(uri, "crash-a") == 0)
        try ReportRollupTests.compare(reader, path: uri, "crash recounted")
        #expect(try reader.report().upstream.outcomes.contains(Count("unknown", rows / 25 - 2)))
    }

    /// A completion of an intent another instance wrote moves that instance's counter rows,
    /// which a recount of the crashed instance's own rows (by its marks) would not reach: such a
    /// batch writes its counters at once, never carries them, and the rollups still equal the
    /// log after the crash and the next start (on a writer that carried them, the two requests
    /// `began-b` left in flight stayed counted as in flight in its rollups).
    @Test func aCompletionOfAnotherInstancesIntentIsNeverCarried() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        // Completed first, each a batch of its own: a later batch of crash-c's own rows cannot
        // write them with its carry.
        let reader = try await Self.crashWithCarriedCounters(uri, first: "began-b", crashing: "crash-c", completingFirst: true)
        let restarted = try Self.store(uri, "crash-c")
        await restarted.close()
        #expect(try Self.marks(uri, "crash-c") == 0)
        try ReportRollupTests.compare(reader, path: uri, "another instance's intents completed, crash recounted")
    }

    /// A survivor taking over an instance that died with counters carried recounts them from
    /// the dead instance's marks in the takeover's transaction, then settles its in-flight rows.
    @Test func aTakeoverRecountsTheCountersADeadInstanceCarried() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let dying = try Self.store(uri, "dead-a", holding: true)
        try await Self.writeConcurrently(dying, 0..<ReportRollupTests.rows)
        await dying.close()
        let reader = try AuditReader(path: uri)
        let before = try RollupRecoveryTests.counts(reader)
        #expect(before.rollups != before.rows, "nothing was left unwritten")
        let log = EventLog(format: .logfmt, minimumLevel: .info, sink: LineCollector().sink)
        let dead = try InstanceRegistry(uri: uri, name: "dead-a", settings: InstanceTakeoverTests.settings(deadAfter: 5_000), log: log)
        try dead.beat()
        try PostgresConnection(uri).execute("UPDATE instances SET heartbeat_at = heartbeat_at - 10000 WHERE name = 'dead-a'")
        let survivor = try InstanceRegistry(uri: uri, name: "survivor", settings: InstanceTakeoverTests.settings(deadAfter: 5_000), log: log,
                                            takeoverStatements: AuditPostgresRecovery.takeoverStatements,
                                            takeoverWork: { try AuditPostgresRecovery.takeOver($0, instance: $1) })
        let takeovers = try survivor.takeOverDead()
        #expect(takeovers.map(\.instance) == ["dead-a"] && takeovers.first?.rows == ReportRollupTests.rows / 25)
        #expect(try Self.marks(uri, "dead-a") == 0)
        try ReportRollupTests.compare(reader, path: uri, "taken over")
    }

    /// A batch that carried its counters fails at its `COMMIT` (a deferred check the test adds
    /// refuses its mark): the writer owes a recount, and the next batch first recounts this
    /// instance's rows from the log, the counters carried before the failure included, before
    /// it carries its own.
    @Test func aFailedCommitOfCarriedCountersIsRecountedByTheNextBatch() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let store = try Self.store(uri, "fail-a", holding: true)
        let refused: Int64 = 1_700_000_000_007
        try PostgresConnection(uri).executeScript("""
            CREATE FUNCTION refuse_mark() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.unwritten_from = \(refused) THEN RAISE EXCEPTION 'refused at commit'; END IF; RETURN NULL; END $$;
            CREATE CONSTRAINT TRIGGER refuse_mark AFTER INSERT ON rollup_marks DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION refuse_mark();
            """)
        for i in 0..<10 { try await store.record(sampleEntry("F-\(i)", receivedAt: refused + 60_000 * Int64(i + 1)), sampleCompletion()) }
        let reader = try AuditReader(path: uri)
        #expect(try RollupRecoveryTests.counts(reader).rollups == [], "the held counters were written")
        await #expect(throws: (any Error).self) { try await store.record(sampleEntry("REFUSED", receivedAt: refused), sampleCompletion()) }
        try await store.record(sampleEntry("AFTER", receivedAt: refused + 3_600_000), sampleCompletion())
        // Recounted: the ten carried before the failure; AFTER's own counters are carried (its mark).
        #expect(try RollupRecoveryTests.counts(reader) == (["forwarded=10"], ["forwarded=11"]))
        #expect(try Self.marks(uri, "fail-a") == 1)
        await store.close()
        let reopened = try Self.store(uri, "fail-a")
        await reopened.close()
        #expect(try RollupRecoveryTests.counts(reader) == (["forwarded=11"], ["forwarded=11"]))
        try HourlyRollupTests.expectHoursAreTheirMinutes(reader, "after the failed commit")
    }

    /// The server restarted while batches carried counters: their commits (or the writing
    /// batch's) fail, and the writer recounts its rows from the log once the server is back;
    /// after the load and the store's close, the rollups count what the rows hold, per outcome
    /// and per hour, and no mark is left.
    @Test func aServerRestartWhileCountersAreCarriedIsRecountedByTheWriter() async throws {
        let cluster = try PostgresTestCluster.startPrivate()
        defer { cluster.stop() }
        let uri = try cluster.makeDatabase()
        let store = try Self.store(uri, "restart-a")
        let counters = CarryLoad()
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for lane in 0..<16 {
                    group.addTask {
                        var n = 0
                        while counters.running.load(ordering: .relaxed) {
                            n += 1
                            let id = "RS-\(lane)-\(n)", now = AuditClock.nowMilliseconds()
                            do {
                                // Half begun and finished apart: completions of intents of other batches.
                                if n % 2 == 0 {
                                    try await store.begin(sampleEntry(id, receivedAt: now, findings: 1))
                                    try await store.finish(id, sampleCompletion(finishedAt: now + 3))
                                } else {
                                    try await store.record(sampleEntry(id, receivedAt: now, findings: 1), sampleCompletion(finishedAt: now + 3))
                                }
                                counters.succeeded.add(1, ordering: .relaxed)
                            } catch {
                                continue
                            }
                        }
                    }
                }
            }
        }
        #expect(await eventually(30) { counters.succeeded.load(ordering: .relaxed) >= 300 })
        try await offPool { try cluster.restart() }
        let before = counters.succeeded.load(ordering: .relaxed)
        #expect(await eventually(30) { counters.succeeded.load(ordering: .relaxed) >= before + 300 }, "no service after the restart")
        counters.running.store(false, ordering: .relaxed)
        await load.value
        await store.close()
        #expect(store.statistics.carriedRollups > 0, "no batch carried its counters: \(store.statistics)")
        let reader = try AuditReader(path: uri)
        let (rollups, rows) = try RollupRecoveryTests.counts(reader)
        #expect(rollups == rows, "the rollups count \(rollups), the rows hold \(rows)")
        #expect(try Self.marks(uri, "restart-a") == 0)
        try HourlyRollupTests.expectHoursAreTheirMinutes(reader, "after the restart")
    }
}

/// What the restart test's load tasks share: whether to go on, and how many requests were written.
private final class CarryLoad: Sendable {
    let running = Atomic<Bool>(true)
    let succeeded = Atomic<Int>(0)
}
