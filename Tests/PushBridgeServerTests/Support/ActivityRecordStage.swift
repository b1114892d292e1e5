import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Where issue 29's record scenarios run: one proxy on an SQLite audit (``first`` and
/// ``second`` are the same listener), or two `pushbridge serve` instances on one PostgreSQL
/// audit (``first`` is instance `a`, ``second`` instance `b`); the sandbox as OpenPush and a
/// recording legacy provider on 127.0.0.1 either way. The scenarios are written once here.
struct ActivityRecordStage: Sendable {
    /// Sends a POST through the first instance, with the credentials its path needs.
    var first: @Sendable (_ path: String, _ body: [UInt8]) async throws -> ProxyReply
    /// Sends a POST through the second instance.
    var second: @Sendable (_ path: String, _ body: [UInt8]) async throws -> ProxyReply
    /// The shared audit's activity ledger.
    var ledger: ActivityLedger
    /// Reloads every instance with the configuration `edit` makes.
    var reconfigure: @Sendable (_ edit: @escaping @Sendable (inout TestConfiguration) -> Void) async throws -> Void
    /// OpenPush (the sandbox) as the instances reach it.
    var openPush: RecordingSandbox
    /// The legacy provider of every dialect.
    var legacy: FakeLegacyProvider

    /// The OpenPush app every test app shares.
    static let openPushApp = "app_3f9c2b"
    /// The second OneSignal app's path prefix (`os-mapped`, same OpenPush app as `os`).
    static let mappedPrefix = "/apps/5eb5a37e-b458-11e3-ac11-000c2940e62c"

    /// A POST to `port` (a `serve` instance) as ``ProxyReply``.
    static func post(port: UInt16, _ path: String, _ body: [UInt8]) async throws -> ProxyReply {
        let headers = [("Content-Type", "application/json")] + ProxyHarness.credentials(for: path)
        let reply = try await RawHTTPClient.send(port: port, method: "POST", target: path, headers: headers, body: body)
        return (reply.status, [:], reply.body)
    }

    /// The record of `id` of `app`, as the router reads it.
    func record(_ app: String, _ id: String) async throws -> ActivityRecord? {
        try await ledger.record(openPushApp: Self.openPushApp, app: app, activityId: id, now: RFC3339.nowMilliseconds())
    }

    /// The configuration for the cross-tenant scenario: `os` and `os-mapped` (two source
    /// apps, one OpenPush app) in openpush mode.
    static func twoTenants(_ base: TestConfiguration, legacy: String) -> TestConfiguration {
        base.with {
            $0.apps = [TestApp.os, TestApp.osMapped]
            $0.legacy[.onesignal] = legacy
            $0.setMode(.openpush)
        }
    }

    /// Item 1: app B's update and end of app A's `tenant_a_private_1` (same OpenPush app) are
    /// refused 409 in OneSignal's dialect, naming the field and the rule, audited, sent
    /// nowhere; A's own update still reaches its activity.
    func crossTenantEventsAreRefused() async throws {
        let affinity = ActivityAffinityTests.cases[0]
        let id = "tenant_a_private_1"
        let started = try await first(affinity.startPath, affinity.start(id))
        #expect((200..<300).contains(started.status), "A's start failed: \(String(decoding: started.body, as: UTF8.self))")
        let sent = openPush.all.count
        for event in ["update", "end"] {
            let reply = try await second(Self.mappedPrefix + "/live_activities/\(id)/notifications", affinity.update(id, event))
            let text = String(decoding: reply.body, as: UTF8.self)
            #expect(reply.status == 409, "B's \(event) of A's activity was not refused: \(reply.status) \(text)")
            #expect(text.contains("activity_id") && text.contains("another source app"), "\(text)")
        }
        #expect(openPush.all.count == sent && legacy.all.isEmpty, "B's events of A's activity were sent")
        let mine = try await first(affinity.updatePath(id), affinity.update(id, "update"))
        #expect((200..<300).contains(mine.status), "A's own update failed after B's refusals: \(String(decoding: mine.body, as: UTF8.self))")
        #expect(try await record("os", id)?.endedAt == nil, "B's end closed A's record")
    }

    /// The configuration for the re-sent start: `os` in rollout at 0% with a legacy provider.
    static func rolloutAtZero(_ base: TestConfiguration, legacy: String) -> TestConfiguration {
        base.with {
            $0.apps = [TestApp.os]
            $0.legacy[.onesignal] = legacy
            $0.setMode(.rollout)
            $0.apps[0].rollout = .init(percent: 0)
        }
    }

    /// Item 4: a start placed on the legacy side at rollout 0%, sent again after the percent
    /// went to 100%, goes to the legacy side again, and so does its end; OpenPush never sees it.
    func aStartSentAgainGoesWhereItLives() async throws {
        let rollout = RolloutLiveTests.cases[0], affinity = ActivityAffinityTests.cases[0]
        let start = rollout.body("alice", "resend_1")
        let placed = try await first(rollout.path, start)
        #expect(placed.status == 200 && legacy.all.count == 1, "the start at 0% did not go to the legacy provider")
        try await reconfigure { configuration in
            for i in configuration.apps.indices { configuration.apps[i].rollout = .init(percent: 100) }
        }
        let again = try await second(rollout.path, start)
        #expect(again.status == 200 && legacy.all.count == 2, "the start sent again did not reach the legacy provider that holds it")
        let ended = try await second(affinity.updatePath("resend_1"), affinity.update("resend_1", "end"))
        #expect(ended.status == 200 && legacy.all.count == 3 && legacy.all.last?.path.contains("resend_1") == true, "the end did not reach the legacy activity")
        #expect(openPush.all.isEmpty, "OpenPush was sent an activity that lives on the legacy side")
        let closed = try await record("os", "resend_1")
        #expect(closed?.holder == .legacy && closed?.endedAt != nil)
    }

    /// The configuration for the race: `pw` in openpush mode with a legacy provider (an
    /// update OpenPush does not know would fall back to it).
    static func pushwooshOnOpenPush(_ base: TestConfiguration, legacy: String) -> TestConfiguration {
        base.with {
            var pw = TestApp.pw
            pw.segmentMap = TestApp.pushwooshSegmentMap
            $0.apps = [pw]
            $0.legacy[.pushwoosh] = legacy
            $0.setMode(.openpush)
        }
    }

    /// Item 3: a Pushwoosh start's record is in flight (visible through the other instance)
    /// while OpenPush has not answered; an update sent then waits for the start's outcome and
    /// follows it to OpenPush; the legacy provider is never asked, and the record stays
    /// OpenPush's, accepted. `openPush` must hold every start ``startDelay`` before handling it.
    func anUpdateRacingItsStartFollowsIt() async throws {
        let affinity = ActivityAffinityTests.cases[1]
        let id = "race_1"
        let first = self.first
        let start = Task { try await first(affinity.startPath, affinity.start(id)) }
        let inFlight = try await firstValue(within: 10) { try await record("pw", id).flatMap { $0.startState == .inFlight ? $0 : nil } }
        #expect(inFlight?.holder == .openpush, "the start's record was not in flight while OpenPush had it")
        let update = try await second(affinity.updatePath(id), affinity.update(id, "update"))
        let started = try await start.value
        #expect(started.status == 200, "the start failed: \(String(decoding: started.body, as: UTF8.self))")
        #expect(update.status == 200, "the racing update failed: \(String(decoding: update.body, as: UTF8.self))")
        #expect(legacy.all.isEmpty, "the racing update fell back to the legacy provider")
        let paths = openPush.all.map(\.path)
        #expect(paths.count == 2 && paths.last?.contains("/live_activities/\(id)/") == true, "\(paths)")
        let placed = try await record("pw", id)
        #expect(placed?.holder == .openpush && placed?.startState == .accepted && placed?.lastUpdateAt != nil, "\(String(describing: placed))")
    }

    /// How long the race's sandbox holds a start before handling it.
    static let startDelay: Duration = .milliseconds(800)

    /// A sandbox that holds each start ``startDelay`` before handling it. A fixed delay is the
    /// behaviour under test here, not a wait for a condition: the update must reach the proxy
    /// while the start is in flight and without any signal from the test (a gate the test opens
    /// would need to know the update is waiting, which only the proxy's inside could tell).
    static func slowStarts() throws -> RecordingSandbox {
        try RecordingSandbox(behaviour: { request in
            if request.path.contains("/activities/activity/") { try? await Task.sleep(for: startDelay) }
            return nil
        })
    }
}
