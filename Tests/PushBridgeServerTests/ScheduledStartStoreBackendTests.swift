import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The scheduled-start store's rules on both backends: the scheduler's SQLite file and the
/// PostgreSQL database every instance shares.
@Suite(.serialized) struct ScheduledStartStoreBackendTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }

        /// `count` stores on one database (several instances), named `i0`, `i1`, …, and the
        /// folder of an SQLite file (removed when the caller releases it).
        func stores(_ count: Int) throws -> (stores: [ScheduledStartStore], folder: TemporaryDirectory?) {
            switch self {
            case .sqlite:
                let folder = try TemporaryDirectory("pushbridge-sched")
                let path = folder.path("scheduled.sqlite")
                return (try (0..<count).map { try ScheduledStartStore(path: path, instance: "i\($0)") }, folder)
            case .postgres:
                let uri = try PostgresTestCluster.start().makeDatabase()
                return (try (0..<count).map { try ScheduledStartStore(postgres: uri, instance: "i\($0)") }, nil)
            }
        }
    }

    static func start(_ n: Int, sendAt seconds: Int64) -> ScheduledStart {
        var start = OpenPushStart(appId: "app_3f9c2b", activityType: "T")
        start.activityId = "a\(n)"
        start.includeSubscriptionIds = ["sub_ios_alice"]
        start.idempotencyKey = IdempotencyKeys.derive(requestId: "req_\(n)", index: 0)
        return ScheduledStart(id: "sch_\(n)", requestId: "req_\(n)", ordinal: 0, appName: "pw", request: OpenPushRequest(.start(start)),
                              time: SendTime(unixSeconds: seconds, sendDate: "2033-05-18 03:33", timezone: "UTC"))
    }

    @Test(arguments: Backend.allCases)
    func aStartIsStoredClaimedOnceFinishedAndLosesItsBody(_ backend: Backend) async throws {
        let (opened, folder) = try backend.stores(1)
        defer { withExtendedLifetime(folder) {} }
        let store = opened[0]
        try await store.insert([Self.start(1, sendAt: 100), Self.start(2, sendAt: 50), Self.start(3, sendAt: 2_000_000_000)], now: 1)
        #expect(try await store.count() == 3)
        #expect(try await store.nextSendAt() == 50_000)
        let claimed = try await store.claimDue(now: 100_000, limit: 100)
        #expect(claimed.map(\.id) == ["sch_2", "sch_1"], "due ones, earliest first")
        #expect(claimed.allSatisfy { $0.state == .sending && $0.request != nil })
        #expect(try await store.claimDue(now: 100_000, limit: 100).isEmpty, "a claimed start is not claimed again")
        try await store.finish("sch_1", sent: true, notificationId: "n1", status: 200, error: nil, now: 5)
        let sent = try #require(try await store.starts(ofRequest: "req_1").first)
        #expect(sent.state == .sent && sent.request == nil && sent.notificationId == "n1" && sent.upstreamStatus == 200 && sent.finishedAt == 5)
        #expect(try await store.cancel("sch_3", now: 6))
        #expect(try await !store.cancel("sch_3", now: 7))
        #expect(try await store.list(states: [.cancelled]).map(\.id) == ["sch_3"])
        #expect(try await store.list(states: [.cancelled]).first?.request == nil)
        #expect(try await store.list(states: [.sending]).map(\.id) == ["sch_2"])
        #expect(try await store.list().count == 3)
    }

    @Test(arguments: Backend.allCases)
    func schedulersPollingTogetherClaimEachStartExactlyOnce(_ backend: Backend) async throws {
        let (stores, folder) = try backend.stores(3)
        defer { withExtendedLifetime(folder) {} }
        try await stores[0].insert((0..<60).map { Self.start($0, sendAt: 10) }, now: 1)
        let all = await withTaskGroup(of: [String].self) { group in
            for store in stores {
                group.addTask {
                    var ids: [String] = []
                    for _ in 0..<10 { ids += (try? await store.claimDue(now: 20_000, limit: 7))?.map(\.id) ?? [] }
                    return ids
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(all.count == 60 && Set(all).count == 60, "\(all.count) claims of \(Set(all).count) starts")
    }

    /// The overdue gauge's count: starts pending or sending whose send time is before the
    /// cutoff; sent, cancelled and later ones are not.
    @Test(arguments: Backend.allCases)
    func overdueCountsStartsStillToSendBeforeTheCutoff(_ backend: Backend) async throws {
        let (stores, folder) = try backend.stores(1)
        defer { withExtendedLifetime(folder) {} }
        let store = stores[0]
        try await store.insert([10, 20, 30, 40, 500].enumerated().map { Self.start($0.offset, sendAt: $0.element) }, now: 1)
        #expect(try await store.claim("sch_1", now: 25_000))
        #expect(try await store.claim("sch_2", now: 35_000))
        try await store.finish("sch_2", sent: true, notificationId: "n2", status: 200, error: nil, now: 36_000)
        #expect(try await store.cancel("sch_3", now: 37_000))
        #expect(try await store.overdue(before: 100_000) == 2, "sch_0 pending and sch_1 sending")
        #expect(try await store.overdue(before: 15_000) == 1)
        #expect(try await store.overdue(before: 10_000) == 0)
    }
}

/// `pushbridge scheduled list|cancel --db URI` on the shared PostgreSQL table.
@Suite(.serialized) struct ScheduledCommandPostgresTests {
    @Test func listAndCancelWorkOnTheSharedTable() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let store = try ScheduledStartStore(postgres: uri, instance: "a")
        try await store.insert([ScheduledStartStoreBackendTests.start(1, sendAt: 2_000_000_000), ScheduledStartStoreBackendTests.start(2, sendAt: 2_000_000_001)], now: 1)
        let listed = try CLIRunner.run(["scheduled", "list", "--db", uri])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("sch_1") && listed.stdout.contains("sch_2") && listed.stdout.contains("2 scheduled start(s)"))
        #expect(!listed.stdout.contains("sub_ios_alice"), "never a body")
        let cancelled = try CLIRunner.run(["scheduled", "cancel", "sch_1", "--db", uri])
        #expect(cancelled.status == 0 && cancelled.stdout.contains("cancelled sch_1"), "\(cancelled.stderr)")
        #expect(try await store.list(states: [.pending]).map(\.id) == ["sch_2"])
        #expect(try CLIRunner.run(["scheduled", "cancel", "sch_1", "--db", uri]).status == 1)
    }

    /// `--audit-db` naming the shared PostgreSQL audit: the cancel reaches the mirror and
    /// completes the request's row there, as it does in an audit file. (Today's `main`
    /// opened the URI as an SQLite file and failed.)
    @Test func cancelWithTheSharedAuditMarksTheMirrorAndCompletesTheRow() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let store = try ScheduledStartStore(postgres: uri, instance: "a")
        try await store.insert([ScheduledStartStoreBackendTests.start(1, sendAt: 2_000_000_000)], now: 1)
        let admin = try PostgresConnection(uri)
        try admin.execute("INSERT INTO requests (request_id, received_at, outcome, instance_name) VALUES ('req_1', 1, 'scheduled', 'a')")
        try AuditStatement.mirrorScheduled(requestId: "req_1", ordinal: 0, sendAt: 2_000_000_000_000, targetApp: "app_3f9c2b", redactedRequest: "{}",
                                           createdAt: 1, instance: "a").run(on: admin)

        let cancelled = try await CLIRunner.runAsync(["scheduled", "cancel", "sch_1", "--db", uri, "--audit-db", uri])
        #expect(cancelled.status == 0 && cancelled.stdout.contains("cancelled sch_1"), "\(cancelled.stderr)")
        #expect(try admin.execute("SELECT state FROM scheduled_sends WHERE request_id = 'req_1'").rows == [["cancelled"]])
        let row = try admin.execute("SELECT outcome, error_message FROM requests WHERE request_id = 'req_1'").rows.first
        #expect(row?[0] == "rejected", "\(String(describing: row))")
        #expect(row?[1]?.contains("pushbridge scheduled cancel") == true, "\(String(describing: row))")
        #expect(try await store.list(states: [.cancelled]).map(\.id) == ["sch_1"])
    }
}
