import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// How many durable commits a scheduled Pushwoosh start costs before its caller is answered:
/// every commit is an fsync the caller waits for.
@Suite(.serialized) struct ScheduledStartCommitTests {
    /// A Pushwoosh start with `count` notifications, each to its own activity, `send_date` at `sendAt`.
    static func body(sendAt: Int64, count: Int) -> [UInt8] {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        let date = f.string(from: Date(timeIntervalSince1970: TimeInterval(sendAt)))
        let notifications = (0..<count).map { i in """
            {"content": "Your order is being prepared", "title": "Food Delivery",
             "live_activity": {"event": "start", "title": "Order status", "content-state": {"status": "Third"},
                               "attributes-type": "FoodDeliveryAttributes", "attributes": {}},
             "live_activity_id": "SCHEDULED_ACTIVITY_\(i)", "devices": ["sub_ios_alice"], "send_date": "\(date)", "timezone": "UTC"}
            """ }.joined(separator: ",")
        return Array(#"{"request": {"application": "XXXXX-XXXXX", "auth": "\#(ProxyHarness.pushwooshAuth)", "notifications": [\#(notifications)]}}"#.utf8)
    }

    /// Where the audit and the starts live.
    enum Engine: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    @Test(arguments: Engine.allCases)
    func aStartOfThreeNotificationsIsOneAuditCommitAndOneSchedulerCommit(_ engine: Engine) async throws {
        #expect(!Engine.allCases.isEmpty)
        let upstream = try RecordingSandbox()
        let (_, sendAt, clock) = ProxySchedulerLiveTests.twoDaysAhead()
        let uri = engine == .postgres ? try PostgresTestCluster.start().makeDatabase() : nil
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL, clock: clock, auditDatabase: uri)
        let audit = proxy.runtime.audit
        let store = proxy.runtime.scheduler.store
        let (auditBefore, storeBefore) = (audit.statistics.transactions, store.commits)

        let reply = try await proxy.send(path: ProxySchedulerLiveTests.path, body: Self.body(sendAt: sendAt, count: 3))
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        let requestId = try #require(reply.headers["x-pushbridge-request-id"])
        #expect(try await store.starts(ofRequest: requestId).count == 3)
        let mirrorCount = "SELECT count(*) FROM scheduled_sends WHERE request_id = ?"
        let mirrored = try uri.map { try PostgresConnection($0).select(mirrorCount, [.text(requestId)]) }
            ?? SQLiteDatabase(path: proxy.auditPath).rows(mirrorCount, [.text(requestId)])
        #expect(mirrored.first?.first?.integerValue == 3)

        let auditCommits = audit.statistics.transactions - auditBefore
        let storeCommits = store.commits - storeBefore
        print("scheduled Pushwoosh start of 3 (\(engine.rawValue)): \(auditCommits) audit commit(s), \(storeCommits) scheduler commit(s)")
        #expect(auditCommits == 1, "the audit row and its three mirror rows took \(auditCommits) commits")
        #expect(storeCommits == 1)
        await proxy.stop()
        await upstream.server.stop(gracePeriod: .seconds(1))
    }
}
