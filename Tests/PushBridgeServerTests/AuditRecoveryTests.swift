import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The `requests` table declared once for both engines, and `pending → unknown` written once:
/// at start-up on both engines, and by the takeover of a dead instance on PostgreSQL.
@Suite(.serialized) struct AuditRecoveryTests {
    /// What each engine's migrations made is what ``AuditRequestColumn`` declares, name for name
    /// and in order, so the writer's statements and the readers' columns fit either database.
    @Test(arguments: AuditEngine.allCases) func theRequestsTableIsTheOneDeclared(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            let sql = engine == .sqlite
                ? "SELECT name, type FROM pragma_table_info('requests') ORDER BY cid"
                : "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'requests' ORDER BY ordinal_position"
            let columns = try store.reader.query(sql).map { [$0[0].textValue ?? "", ($0[1].textValue ?? "").uppercased()] }
            // On SQLite `requests` is a view (migration 12): its `outcome` is `coalesce(o.outcome, 'pending')`,
            // and its `response_body` the upstream body where the answer was stored once (migration 16),
            // expressions, which SQLite gives no declared type; the log's tables declare them.
            let expressions: Set<AuditRequestColumn> = engine == .sqlite ? [.outcome, .responseBody] : []
            let declared = AuditRequestColumn.allCases.map { [$0.name, expressions.contains($0) ? "" : $0.kind.type(sqlite: engine == .sqlite)] }
            #expect(columns == [["id", engine == .sqlite ? "INTEGER" : "BIGINT"]] + declared)
            await store.close()
        }
    }

    /// A row begun by a process that stopped is `unknown` when its instance starts again, with
    /// why; on PostgreSQL another instance's pending row is left to that instance.
    @Test(arguments: AuditEngine.allCases) func aRowLeftPendingBecomesUnknownWhenItsInstanceStartsAgain(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            var mine = AuditStoreConfiguration()
            mine.instanceName = "a"
            let first = try AuditStore(path: path, configuration: mine)
            try await first.begin(sampleEntry("LEFT"))
            try await first.record(sampleEntry("DONE"), sampleCompletion())
            await first.close()
            if engine == .postgresql {
                var other = AuditStoreConfiguration()
                other.instanceName = "b"
                let neighbour = try AuditStore(path: path, configuration: other)
                try await neighbour.begin(sampleEntry("THEIRS"))
                await neighbour.close()
            }
            let reopened = try AuditStore(path: path, configuration: mine)
            #expect(reopened.recoveredPendingCount == 1)
            let left = try #require(try reopened.reader.show(requestId: "LEFT"))
            #expect(left.outcome == "unknown")
            #expect(left.finishedAt != nil)
            #expect(left.errorMessage == "the process stopped before this request was completed; whether it reached OpenPush is unknown")
            #expect(try reopened.reader.show(requestId: "DONE")?.outcome == "forwarded")
            if engine == .postgresql {
                #expect(try reopened.reader.show(requestId: "THEIRS")?.outcome == "pending")
            }
            await reopened.close()
        }
    }

    /// A survivor that takes a dead instance over marks that instance's pending rows
    /// `unknown` with the audit's own statement, naming the instance, and touches no other row.
    @Test func aDeadInstancesPendingRowsBecomeUnknownWhenASurvivorTakesItOver() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        var dead = AuditStoreConfiguration()
        dead.instanceName = "dead"
        let store = try AuditStore(path: uri, configuration: dead)
        try await store.begin(sampleEntry("STUCK"))
        try await store.record(sampleEntry("SETTLED"), sampleCompletion())
        var alive = AuditStoreConfiguration()
        alive.instanceName = "alive"
        let survivorStore = try AuditStore(path: uri, configuration: alive)
        try await survivorStore.begin(sampleEntry("RUNNING"))
        let (deadRegistry, _) = try InstanceTakeoverTests.registry(uri, "dead")
        try deadRegistry.beat()
        let admin = try PostgresConnection(uri)
        try admin.execute("UPDATE instances SET heartbeat_at = heartbeat_at - 10000 WHERE name = 'dead'")
        let (survivor, _) = try InstanceTakeoverTests.registry(uri, "alive", deadAfter: 5_000, statements: AuditPostgresRecovery.takeoverStatements)
        #expect(try survivor.takeOverDead() == [InstanceRegistry.Takeover(instance: "dead", starts: 0, rows: 1)])
        let stuck = try #require(try survivorStore.reader.show(requestId: "STUCK"))
        #expect(stuck.outcome == "unknown")
        #expect(stuck.finishedAt != nil)
        #expect(stuck.errorMessage == "the instance dead stopped before this request was completed; whether it reached OpenPush is unknown")
        #expect(try survivorStore.reader.show(requestId: "SETTLED")?.outcome == "forwarded")
        #expect(try survivorStore.reader.show(requestId: "RUNNING")?.outcome == "pending")
        // The rollups count the dead instance's intent `unknown`, in the takeover's transaction.
        let (rollups, rows) = try RollupRecoveryTests.counts(survivorStore.reader)
        #expect(rollups == ["forwarded=1", "pending=1", "unknown=1"])
        #expect(rollups == rows)
        let perInstance = try survivorStore.reader.query("""
            SELECT instance_name, outcome, sum(requests) FROM rollup_requests GROUP BY instance_name, outcome HAVING sum(requests) != 0
            ORDER BY instance_name, outcome
            """).map { "\($0[0].textValue ?? "") \($0[1].textValue ?? "")=\($0[2].integerValue ?? -1)" }
        #expect(perInstance == ["alive pending=1", "dead forwarded=1", "dead unknown=1"])
        await store.close()
        await survivorStore.close()
    }
}
