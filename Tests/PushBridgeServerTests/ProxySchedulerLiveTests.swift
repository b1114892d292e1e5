import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Scheduled Pushwoosh starts: answered at once, stored durably, sent at their time by the
/// scheduler (on a clock the test moves), across a stop and a restart, and never twice.
@Suite(.serialized) struct ProxySchedulerLiveTests {
    static let path = "/json/1.3/startLiveActivity"

    /// Now (Unix seconds), a send time two days ahead on a minute boundary, and a test clock
    /// standing at now.
    static func twoDaysAhead() -> (now: Int64, sendAt: Int64, clock: ManualDeliveryClock) {
        let now = Int64(Date().timeIntervalSince1970)
        return (now, (now / 60 + 2 * 24 * 60) * 60, ManualDeliveryClock(startMilliseconds: now * 1000))
    }

    /// A Pushwoosh start to one subscription, `send_date` two days ahead (UTC, minute precision).
    static func body(sendAt: Int64) -> [UInt8] {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        let date = f.string(from: Date(timeIntervalSince1970: TimeInterval(sendAt)))
        return Array("""
        {"request": {"application": "XXXXX-XXXXX", "auth": "\(ProxyHarness.pushwooshAuth)", "notifications": [{
          "content": "Your order is being prepared", "title": "Food Delivery",
          "live_activity": {"event": "start", "title": "Order status", "content-state": {"status": "Third"},
                            "attributes-type": "FoodDeliveryAttributes", "attributes": {}},
          "live_activity_id": "SCHEDULED_ACTIVITY", "devices": ["sub_ios_alice"],
          "send_date": "\(date)", "timezone": "UTC"}]}}
        """.utf8)
    }

    @Test func aScheduledStartSurvivesARestartAndIsSentOnceAtItsTime() async throws {
        let upstream = try RecordingSandbox()
        let (now, sendAt, clockA) = Self.twoDaysAhead()
        let first = try ProxyHarness(.inProcess, upstream: upstream.baseURL, clock: clockA)

        let reply = try await first.send(path: Self.path, body: Self.body(sendAt: sendAt))
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        let answer = try #require(try JSONParser.parse(reply.body).objectValue)
        let messages = answer["response"]?.objectValue?["Messages"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(messages.count == 1 && messages[0].hasPrefix("sch_"), "\(answer)")
        let requestId = try #require(reply.headers["x-pushbridge-request-id"])
        #expect(try AuditReader(path: first.auditPath).show(requestId: requestId)?.outcome == "scheduled")
        let pending = try await first.runtime.scheduler.store.list(states: [.pending])
        #expect(pending.count == 1 && pending.first?.id == messages.first && pending.first?.sendAt == sendAt * 1000)
        // An hour passes: nothing is due; then the proxy stops before the send time.
        clockA.advance(byMilliseconds: 3_600_000)
        #expect(await clockA.settled(), "the scheduler did not sleep again after the hour passed")
        #expect(upstream.all.isEmpty)
        await first.stop()
        let schedulerDB = first.directory.appendingPathComponent("audit-scheduled.sqlite").path
        let listed = try await CLIRunner.runAsync(["scheduled", "list", "--db", schedulerDB])
        #expect(listed.status == 0 && listed.stdout.contains(messages[0]) && listed.stdout.contains("pending"), "\(listed.stdout)\(listed.stderr)")
        #expect(!listed.stdout.contains("sub_ios_alice"), "the CLI printed a device id")
        let listedJSON = try await CLIRunner.runAsync(["scheduled", "list", "--db", schedulerDB, "--format", "json"])
        let starts = try JSONParser.parse(Array(listedJSON.stdout.utf8)).objectValue?["starts"]?.arrayValue ?? []
        #expect(starts.count == 1 && starts.first?.objectValue?["state"] == .string("pending") && starts.first?.objectValue?["id"] == .string(messages[0]),
                "\(listedJSON.stdout)\(listedJSON.stderr)")
        #expect(!listedJSON.stdout.contains("sub_ios_alice"), "the CLI printed a device id")

        // A new proxy on the same files, its clock past the send time, sends it once.
        let clockB = ManualDeliveryClock(startMilliseconds: now * 1000)
        let second = try ProxyHarness(.inProcess, upstream: upstream.baseURL, folder: first.folder, clock: clockB)
        #expect(try await second.runtime.scheduler.store.list(states: [.pending]).count == 1)
        #expect(await clockB.settled(), "the restarted scheduler never finished its first pass")
        #expect(upstream.all.isEmpty, "sent before its time")
        clockB.set(sendAt * 1000 + 1000)
        #expect(await eventually(10) { upstream.all.count == 1 })
        #expect(await eventually(5) { (try? AuditReader(path: second.auditPath).show(requestId: requestId)?.outcome) == "sent" })
        let sent = try #require(upstream.all.first)
        #expect(sent.path == "/apps/app_3f9c2b/activities/activity/FoodDeliveryAttributes")
        #expect(sent.response.status == 201)
        let body = try #require(try JSONParser.parse(sent.body).objectValue)
        #expect(body["include_subscription_ids"] == .array([.string("sub_ios_alice")]))
        #expect(body["idempotency_key"]?.stringValue == IdempotencyKeys.derive(requestId: requestId, index: 0))
        let stored = try #require(try await second.runtime.scheduler.store.list().first)
        #expect(stored.state == .sent && stored.request == nil && stored.notificationId != nil)
        let mirror = try SQLiteDatabase(path: second.auditPath).rows("SELECT state, upstream_status, request FROM scheduled_sends WHERE request_id = ?", [.text(requestId)])
        #expect(mirror.first?[0] == .text("sent") && mirror.first?[1] == .integer(201))
        let mirrored = mirror.first?[2].textValue ?? "sub_ios_alice"
        #expect(mirrored.range(of: "sub_ios_alice") == nil, "the audit's mirror holds a device id in clear")
        let names = try SQLiteDatabase(path: second.auditPath).rows(
            "SELECT s.instance_name, r.instance_name FROM scheduled_sends s JOIN requests r ON r.request_id = s.request_id WHERE s.request_id = ?", [.text(requestId)])
        #expect(names.first?[0].textValue != nil && names.first?[0] == names.first?[1], "the mirror row does not name the instance that took the start: \(names)")
        let row = try #require(try AuditReader(path: second.auditPath).show(requestId: requestId))
        #expect(row.responseStatus == 200 && row.upstreamStatus == 201 && row.attempts != nil)

        // Time moves on and the scheduler runs again: still one send.
        clockB.advance(byMilliseconds: 120_000)
        second.runtime.scheduler.wake()
        #expect(await clockB.settled(), "the scheduler did not sleep again after its pass")
        #expect(upstream.all.count == 1)
        await second.stop()
        await upstream.server.stop(gracePeriod: .seconds(1))
    }

    @Test func aPendingStartCanBeListedAndCancelledAndIsThenNeverSent() async throws {
        let directory = try TemporaryDirectory("pushbridge-sched")
        let store = try ScheduledStartStore(path: directory.path("s.sqlite"))
        var start = OpenPushStart(appId: "app_3f9c2b", activityType: "T")
        start.activityId = "a1"
        start.includeSubscriptionIds = ["sub_ios_alice"]
        let s = ScheduledStart(id: "sch_1", requestId: "req_1", ordinal: 0, appName: "pw", request: OpenPushRequest(.start(start)),
                               time: SendTime(unixSeconds: 2_000_000_000, sendDate: "2033-05-18 03:33", timezone: "UTC"))
        try await store.insert([s], now: 1)
        #expect(try await store.list(states: [.pending]).map(\.id) == ["sch_1"])
        #expect(try await store.cancel("sch_1", now: 2))
        #expect(try await !store.cancel("sch_1", now: 3))
        #expect(try await !store.claim("sch_1", now: 4))
        #expect(try await store.list(states: [.pending, .sending]).isEmpty, "a cancelled start is never due")
        let cancelled = try #require(try await store.list().first)
        #expect(cancelled.state == .cancelled && cancelled.request == nil)
        // Two schedulers racing for one start: only one claim wins.
        try await store.insert([ScheduledStart(id: "sch_2", requestId: "req_2", ordinal: 0, appName: "pw", request: OpenPushRequest(.start(start)),
                                         time: SendTime(unixSeconds: 1, sendDate: "1970-01-01 00:00", timezone: "UTC"))], now: 1)
        #expect(try await store.claim("sch_2", now: 5))
        #expect(try await !store.claim("sch_2", now: 5))
    }
}
