import Foundation
import PushBridgeCore
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
        let (half, rows) = (ReportRollupTests.rows / 2, ReportRollupTests.rows)
        let first = try Self.store(uri, "crash-a")
        for i in 0..<half { try await ReportRollupTests.write(first, row: i, of: rows) }
        await first.close()
        let crashing = try Self.store(uri, "crash-a", holding: true)
        try await Self.writeConcurrently(crashing, half..<rows)
        // Two of the first half's requests left in flight are completed now.
        for i in [0, 25] {
            let request = SyntheticTraffic.request(i, of: rows)
            try await crashing.finish(request.entry.requestId, ReportRollupTests.openPushAnswer(i, request.completion))
        }
        await crashing.close()
        let reader = try AuditReader(path: uri)
        let before = try RollupRecoveryTests.counts(reader)
        #expect(before.rollups != before.rows, "the crash left no counters unwritten")
        #expect(try Self.marks(uri, "crash-a") > 0)
        let restarted = try Self.store(uri, "crash-a")
        await restarted.close()
        #expect(try Self.marks(uri, "crash-a") == 0)
        try ReportRollupTests.compare(reader, path: uri, "crash recounted")
        #expect(try reader.report().upstream.outcomes.contains(Count("unknown", rows / 25 - 2)))
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
}
