import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Instances on one PostgreSQL database: heartbeats, and what a survivor takes over from an
/// instance that stopped beating.
@Suite(.serialized) struct InstanceTakeoverTests {
    static func settings(deadAfter: Int64) -> InstanceSettings {
        var s = InstanceSettings()
        s.heartbeatMs = 100
        s.deadAfterMs = deadAfter
        return s
    }

    static func registry(_ uri: String, _ name: String, deadAfter: Int64 = 60_000, statements: [String] = []) throws -> (InstanceRegistry, LineCollector) {
        let lines = LineCollector()
        let registry = try InstanceRegistry(uri: uri, name: name, settings: settings(deadAfter: deadAfter),
                                            log: EventLog(format: .logfmt, minimumLevel: .info, sink: lines.sink), takeoverStatements: statements)
        return (registry, lines)
    }

    @Test func aStartClaimedByADeadInstanceIsSentAgainWithItsOwnIdempotencyKey() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let a = try ScheduledStartStore(postgres: uri, instance: "a"), b = try ScheduledStartStore(postgres: uri, instance: "b")
        let (registryA, _) = try Self.registry(uri, "a")
        try registryA.beat()
        try await a.insert([ScheduledStartStoreBackendTests.start(1, sendAt: 10)], now: 1)
        let claimedByA = try await a.claimDue(now: 20_000, limit: 10)
        #expect(claimedByA.map(\.id) == ["sch_1"])
        // A dies mid-send: no finish, no more heartbeats. B sees nothing to claim meanwhile.
        #expect(try await b.claimDue(now: 30_000, limit: 10).isEmpty)
        let (registryB, lines) = try Self.registry(uri, "b", deadAfter: 1_500)
        try registryB.beat()
        // A's last beat, just now: well within dead_after (1.5 s, so a loaded machine's pause
        // between these two statements does not make it dead).
        try registryA.beat()
        #expect(try registryB.takeOverDead().isEmpty, "A beat less than 1.5 s ago")
        let takeovers = try #require(await firstValue(within: 10) { () -> [InstanceRegistry.Takeover]? in
            let t = try registryB.takeOverDead()
            return t.isEmpty ? nil : t
        })
        #expect(takeovers == [InstanceRegistry.Takeover(instance: "a", starts: 1, rows: 0)])
        #expect(try registryB.registered().map(\.name) == ["b"], "the dead instance's row is gone")
        let resent = try await b.claimDue(now: 30_000, limit: 10)
        #expect(resent.map(\.id) == ["sch_1"], "the same start, not a new one")
        #expect(resent.first?.request == claimedByA.first?.request, "the same body, so the same idempotency key")
        if case .start(let s)? = resent.first?.request?.payload {
            #expect(s.idempotencyKey == IdempotencyKeys.derive(requestId: "req_1", index: 0))
        } else {
            Issue.record("the resent start has no start body")
        }
        try await b.finish("sch_1", sent: true, notificationId: "n1", status: 200, error: nil, now: 40_000)
        #expect(try registryB.takeOverDead().isEmpty, "nothing left to take over")
        #expect(try await a.claimDue(now: 50_000, limit: 10).isEmpty)
        #expect(!lines.output.contains("level=error"))
    }

    @Test func twoSurvivorsTakeADeadInstanceOverOnceAndRunTheAuditStatements() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let admin = try PostgresConnection(uri)
        try admin.execute("CREATE TABLE rows_of (instance TEXT, outcome TEXT)")
        try admin.execute("INSERT INTO rows_of VALUES ('dead', 'pending'), ('dead', 'pending'), ('dead', 'completed'), ('alive', 'pending')")
        let statement = "UPDATE rows_of SET outcome = 'unknown' WHERE instance = $1 AND outcome = 'pending'"
        let (dead, _) = try Self.registry(uri, "dead")
        try dead.beat()
        try admin.execute("UPDATE instances SET heartbeat_at = heartbeat_at - 10000 WHERE name = 'dead'")
        let survivors = try ["s1", "s2"].map { try Self.registry(uri, $0, deadAfter: 5_000, statements: [statement]).0 }
        let results = await withTaskGroup(of: [InstanceRegistry.Takeover].self) { group in
            for survivor in survivors {
                group.addTask { (try? survivor.takeOverDead()) ?? [] }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(results == [InstanceRegistry.Takeover(instance: "dead", starts: 0, rows: 2)])
        #expect(try admin.execute("SELECT instance, outcome FROM rows_of ORDER BY instance, outcome").rows == [
            ["alive", "pending"], ["dead", "completed"], ["dead", "unknown"], ["dead", "unknown"],
        ])
    }

    /// Pacers of instances `a` and `b` on a new database, one send per 5 s window, `a` registered.
    static func twoPacers() throws -> (uri: String, a: PostgresSendPacer, b: PostgresSendPacer, registryA: InstanceRegistry) {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let settings = SharedPacerTests.settings(1, window: 5_000, queue: 100, maxWait: 120_000)
        let (registryA, _) = try registry(uri, "a")
        try registryA.beat()
        return (uri, try SharedPacerTests.pacer(uri, settings, instance: "a"), try SharedPacerTests.pacer(uri, settings, instance: "b"), registryA)
    }

    @Test func aDeadInstancesWaitingPacerGrantsLeaveTheSharedWindow() async throws {
        let (uri, pacerA, pacerB, _) = try Self.twoPacers()
        // A takes 12 slots, one per 5 s window: the first is sent now, 11 wait (up to 55 s).
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        guard case .granted(let grantsA) = await pacerA.reserve(app: "app", count: 12, now: now) else {
            Issue.record("A's 12 sends were refused")
            return
        }
        #expect(grantsA == (0..<12).map { now + Int64($0) * 5_000 })
        // A dies (no more heartbeats); B takes it over once dead_after (2 s) has passed.
        let (registryB, lines) = try Self.registry(uri, "b", deadAfter: 2_000)
        try registryB.beat()
        let takeovers = try #require(await firstValue(within: 15) { () -> [InstanceRegistry.Takeover]? in
            let t = try registryB.takeOverDead()
            return t.isEmpty ? nil : t
        })
        #expect(takeovers == [InstanceRegistry.Takeover(instance: "a", starts: 0, rows: 0, slots: 11)])
        let admin = try PostgresConnection(uri)
        #expect(try admin.execute("SELECT slots FROM pacer_windows WHERE app = 'app'").value(0, 0) == "{\(now)}",
                "the window still counts the sends A was waiting to make")
        #expect(try admin.execute("SELECT count(*) FROM pacer_holds WHERE instance = 'a'").value(0, 0) == "0")
        // B's next send waits only behind the one A really made, not behind A's 11 that never will be.
        #expect(await pacerB.reserve(app: "app", count: 1, now: now + 1_000) == .granted([now + 5_000]))
        #expect(!lines.output.contains("level=error"))
    }

    @Test func aCleanStopGivesBackTheGrantsStillToCome() async throws {
        let (uri, pacerA, pacerB, registryA) = try Self.twoPacers()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(await pacerA.reserve(app: "app", count: 4, now: now) == .granted([now, now + 5_000, now + 10_000, now + 15_000]))
        #expect(await pacerB.reserve(app: "app", count: 1, now: now) == .granted([now + 20_000]))
        await registryA.stop()
        let admin = try PostgresConnection(uri)
        #expect(try admin.execute("SELECT slots FROM pacer_windows WHERE app = 'app'").value(0, 0) == "{\(now),\(now + 20_000)}",
                "A's three grants still to come stayed in the window after its clean stop")
    }

    @Test func aBeatingInstanceIsNeverTakenOverAndAStoppedOneLeavesNoRow() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let (a, _) = try Self.registry(uri, "a")
        let (b, _) = try Self.registry(uri, "b", deadAfter: 3_000)
        try a.start()
        try b.beat()
        // A would be dead once dead_after (3 s, thirty of A's 100 ms beats: the test's other
        // suites keep Swift's two pool threads busy, and a beat delayed by a second on a loaded
        // machine must not make a beating instance dead) passed without a beat: wait until A's
        // own loop has kept beating for longer than that, B looking for dead instances all along.
        let beatOf = { (name: String) throws -> Int64? in try b.registered().first { $0.name == name }?.heartbeatAt }
        let first = try #require(try beatOf("a"))
        var takenOver: [InstanceRegistry.Takeover] = []
        let later = try await firstValue(within: 30) { () throws -> Int64? in
            takenOver += try b.takeOverDead()
            return try beatOf("a").flatMap { $0 >= first + 4_000 ? $0 : nil }
        }
        #expect(later != nil, "A's heartbeat stopped advancing")
        #expect(takenOver.isEmpty, "a beating instance was taken over: \(takenOver)")
        #expect(try b.registered().map(\.name) == ["a", "b"])
        await a.stop()
        #expect(try b.registered().map(\.name) == ["b"])
    }

    @Test func anInstanceTakenOverWhileStalledRegistersAgain() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let (a, lines) = try Self.registry(uri, "a")
        try a.beat()
        try PostgresConnection(uri).execute("DELETE FROM instances")
        try a.beat()
        #expect(try a.registered().map(\.name) == ["a"])
        #expect(lines.output.components(separatedBy: "instance registered").count == 3)
    }
}
