import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Affinity through the in-process proxy, with the sandbox as OpenPush and a recording legacy
/// provider per dialect on 127.0.0.1, modes switched by reloading the configuration: an update
/// or end of a known activity reaches the provider that holds it whatever the mode is now, and
/// one of an activity never seen falls back on the first side's "not known" answer.
@Suite(.serialized) struct ActivityAffinityTests {
    /// One dialect's requests: a start of `id`, and its update or end.
    struct Case: Sendable, CustomTestStringConvertible {
        var dialect: DialectName
        var app: String
        var startPath: String
        var start: @Sendable (String) -> [UInt8]
        var updatePath: @Sendable (String) -> String
        var update: @Sendable (String, String) -> [UInt8]
        var testDescription: String { dialect.rawValue }
    }

    static let cases: [Case] = [
        Case(dialect: .onesignal, app: "os", startPath: "/apps/app_3f9c2b/activities/activity/DeliveryAttributes",
             start: { ProxyPacingLiveTests.startBody($0) },
             updatePath: { "/apps/app_3f9c2b/live_activities/\($0)/notifications" },
             update: { _, event in Array(#"{"event":"\#(event)","name":"Order nearby","event_updates":{"stage":"arriving"},"priority":10}"#.utf8) }),
        Case(dialect: .pushwoosh, app: "pw", startPath: "/json/1.3/startLiveActivity",
             start: { id in Array(#"""
                {"request": {"application": "XXXXX-XXXXX", "auth": "SECRET_API_TOKEN", "notifications": [{
                  "content": "Prepared", "title": "Food", "live_activity": {"event": "start", "title": "Order", "content-state": {"status": "Third"},
                  "attributes-type": "FoodDeliveryAttributes", "attributes": {}}, "live_activity_id": "\#(id)", "devices": ["sub_ios_alice"]}]}}
                """#.utf8) },
             updatePath: { _ in "/json/1.3/updateLiveActivity" },
             update: { id, event in Array(#"""
                {"request": {"application": "XXXXX-XXXXX", "auth": "SECRET_API_TOKEN", "notifications": [{
                  "live_activity": {"event": "\#(event)", "content-state": {"status": "second"}}, "live_activity_id": "\#(id)"}]}}
                """#.utf8) }),
        Case(dialect: .buzzkit, app: "bk", startPath: "/v1/live-activities/send",
             start: { id in Array(#"""
                {"to": "alice", "event": "start", "activityId": "\#(id)", "attributesType": "MatchAttributes", "attributes": {"matchId": "m_1"},
                 "contentState": {"score": 0}, "alert": {"title": "Kick-off", "body": "The match is on"}}
                """#.utf8) },
             updatePath: { _ in "/v1/live-activities/send" },
             update: { id, event in Array(#"{"to": "alice", "event": "\#(event)", "activityId": "\#(id)", "contentState": {"score": 1}}"#.utf8) }),
    ]

    /// `base` with one app per dialect (`os`, `pw`, `bk`), every one in `mode` (with
    /// `shadow`, when given), and `legacy` as every dialect's legacy provider.
    static func configuration(_ base: TestConfiguration, legacy: String, mode: MigrationMode, shadow: TestApp.Shadow? = nil) -> TestConfiguration {
        base.with {
            $0.apps = TestApp.onePerDialect
            for dialect in DialectName.allCases { $0.legacy[dialect] = legacy }
            $0.setMode(mode)
            for i in $0.apps.indices { $0.apps[i].shadow = shadow }
        }
    }

    /// A proxy before `sandbox` with `legacy` as every dialect's legacy provider.
    static func proxy(_ sandbox: RecordingSandbox, legacy: FakeLegacyProvider, mode: MigrationMode, shadow: TestApp.Shadow? = nil) throws -> ProxyHarness {
        try ProxyHarness(.inProcess, configuration: configuration(TestConfiguration(upstream: sandbox.baseURL), legacy: legacy.baseURL, mode: mode, shadow: shadow))
    }

    /// Reloads `proxy` with every app in mode `to` (and no shadow).
    static func switchMode(_ proxy: ProxyHarness, to: MigrationMode) throws {
        proxy.runtime.reload(try proxy.configuration.with {
            $0.setMode(to)
            for i in $0.apps.indices { $0.apps[i].shadow = nil }
        }.load())
    }

    /// The requests the legacy provider got on `path`, with their bodies.
    static func legacyGot(_ legacy: FakeLegacyProvider, _ path: String) -> [UpstreamExchange] { legacy.all.filter { $0.path == path } }

    /// The audit row of the proxy's newest request.
    static func newest(_ proxy: ProxyHarness) throws -> AuditRecord? {
        let reader = try AuditReader(path: proxy.auditPath)
        guard let id = try reader.list(limit: 1).first?.requestId else { return nil }
        return try reader.show(requestId: id)
    }

    /// The sandbox's open activity `id` (its view), or nil.
    static func sandboxActivities(_ sandbox: RecordingSandbox, id: String) async throws -> [JSONObject] {
        let view = await sandbox.sandbox.handle(HTTPRequest(method: "GET", target: "/_sandbox/activities", headers: [("Host", "127.0.0.1")]))
        return (try JSONParser.parse(view.body).objectValue?["activities"]?.arrayValue ?? []).compactMap(\.objectValue).filter { $0["activity_id"] == .string(id) }
    }

    @Test func everyDialectHasACase() {
        #expect(Set(Self.cases.map(\.dialect)) == Set(DialectName.allCases))
    }

    @Test(arguments: cases) func anActivityStartedInObserveIsUpdatedAndEndedAtTheLegacyProviderAfterTheSwitchToOpenPush(_ c: Case) async throws {
        let sandbox = try RecordingSandbox(), legacy = try FakeLegacyProvider(c.dialect)
        let proxy = try Self.proxy(sandbox, legacy: legacy, mode: .observe)
        let id = "obs_\(c.dialect.rawValue)_1"
        let started = try await proxy.send(path: c.startPath, body: c.start(id))
        #expect((200..<300).contains(started.status) && legacy.all.count == 1)
        try Self.switchMode(proxy, to: .openpush)
        for (n, event) in ["update", "end"].enumerated() {
            let body = c.update(id, event)
            let reply = try await proxy.send(path: c.updatePath(id), body: body)
            #expect(reply.status == 200, "the \(event) was not answered by its holder: \(String(decoding: reply.body, as: UTF8.self))")
            #expect(legacy.all.count == n + 2 && legacy.all.last?.body == body, "the \(event) did not reach the legacy provider that holds the activity")
            let row = try #require(try Self.newest(proxy))
            #expect(row.outcome == "forwarded" && row.upstreamStatus == 200)
            #expect((row.attempts ?? "").contains(#""provider":"legacy:\#(c.dialect.rawValue)""#))
        }
        #expect(sandbox.all.isEmpty, "OpenPush was sent an activity it never started")
        await proxy.stop()
    }

    @Test(arguments: cases) func anActivityStartedInShadowStaysOnTheLegacyPrimaryAfterTheSwitchToOpenPush(_ c: Case) async throws {
        let sandbox = try RecordingSandbox(), shadowSandbox = try RecordingSandbox(), legacy = try FakeLegacyProvider(c.dialect)
        let proxy = try Self.proxy(sandbox, legacy: legacy, mode: .shadow, shadow: .init(primary: .legacy, openPushBaseURL: shadowSandbox.baseURL))
        let id = "shd_\(c.dialect.rawValue)_1"
        let started = try await proxy.send(path: c.startPath, body: c.start(id))
        #expect(started.status == 200 && legacy.all.count == 1)
        #expect(await eventually { shadowSandbox.all.count == 1 }, "the shadow start never reached the isolated OpenPush")
        try Self.switchMode(proxy, to: .openpush)
        let body = c.update(id, "update")
        let reply = try await proxy.send(path: c.updatePath(id), body: body)
        #expect(reply.status == 200 && legacy.all.count == 2 && legacy.all.last?.body == body, "the update did not reach the real audience's provider")
        #expect(sandbox.all.isEmpty && shadowSandbox.all.count == 1, "the update went to an OpenPush that does not hold the activity")
        await proxy.stop()
    }

    @Test(arguments: cases) func anActivityStartedOnOpenPushIsUpdatedAndEndedThereAfterTheRollbackToObserve(_ c: Case) async throws {
        let sandbox = try RecordingSandbox(), legacy = try FakeLegacyProvider(c.dialect)
        let proxy = try Self.proxy(sandbox, legacy: legacy, mode: .openpush)
        let id = "opn_\(c.dialect.rawValue)_1"
        let started = try await proxy.send(path: c.startPath, body: c.start(id))
        #expect((200..<300).contains(started.status), "the sandbox refused the start: \(String(decoding: started.body, as: UTF8.self))")
        #expect(try await !Self.sandboxActivities(sandbox, id: id).isEmpty)
        try Self.switchMode(proxy, to: .observe)
        for event in ["update", "end"] {
            let reply = try await proxy.send(path: c.updatePath(id), body: c.update(id, event))
            #expect((200..<300).contains(reply.status), "the \(event) failed: \(String(decoding: reply.body, as: UTF8.self))")
            #expect(sandbox.all.last?.path.contains("/live_activities/\(id)/") == true && (200..<300).contains(sandbox.all.last?.response.status ?? 0))
        }
        #expect(sandbox.all.count == 3)
        let open = try await Self.sandboxActivities(sandbox, id: id)
        #expect(!open.isEmpty && open.allSatisfy { $0["ended_at"] != nil && $0["ended_at"] != .null }, "the sandbox still shows the activity open")
        #expect(legacy.all.isEmpty, "the legacy provider was sent an activity it does not hold")
        await proxy.stop()
    }

    /// When the ledger cannot be read, where an activity lives is not known: the update is
    /// refused in the caller's dialect with 503, audited, and sent to neither side (never a guess).
    @Test(arguments: cases) func anUpdateWhoseLedgerCannotBeReadIsRefused503AndSentNowhere(_ c: Case) async throws {
        let sandbox = try RecordingSandbox(), legacy = try FakeLegacyProvider(c.dialect)
        let proxy = try Self.proxy(sandbox, legacy: legacy, mode: .observe)
        let id = "unreadable_\(c.dialect.rawValue)_1"
        let started = try await proxy.send(path: c.startPath, body: c.start(id))
        #expect((200..<300).contains(started.status) && legacy.all.count == 1)
        let database = try SQLiteDatabase(path: proxy.auditPath)
        try database.execute("PRAGMA busy_timeout = 5000")
        try database.execute("ALTER TABLE activities RENAME TO activities_away")
        let reply = try await proxy.send(path: c.updatePath(id), body: c.update(id, "update"))
        let text = String(decoding: reply.body, as: UTF8.self)
        #expect(reply.status == 503, "\(reply.status) \(text)")
        #expect(legacy.all.count == 1 && sandbox.all.isEmpty, "an update whose holder is not known was sent somewhere")
        let row = try #require(try Self.newest(proxy))
        #expect(row.outcome == "rejected" && row.responseStatus == 503, "\(row.outcome) \(String(describing: row.responseStatus))")
        try database.execute("ALTER TABLE activities_away RENAME TO activities")
        let again = try await proxy.send(path: c.updatePath(id), body: c.update(id, "update"))
        #expect(again.status == 200 && legacy.all.count == 2, "once the ledger answers again, the update reaches its holder")
        await proxy.stop()
    }

    @Test(arguments: cases) func anUpdateOfAnActivityNeverSeenGoesToTheLegacyProviderOnceWhenOpenPushDoesNotKnowIt(_ c: Case) async throws {
        let sandbox = try RecordingSandbox(), legacy = try FakeLegacyProvider(c.dialect)
        let proxy = try Self.proxy(sandbox, legacy: legacy, mode: .openpush)
        let id = "old_\(c.dialect.rawValue)_1"
        let body = c.update(id, "update")
        let reply = try await proxy.send(path: c.updatePath(id), body: body)
        #expect(reply.status == 200 && reply.headers["x-legacy-provider"] == c.dialect.rawValue, "the caller did not get the legacy provider's answer")
        #expect(legacy.all.count == 1 && legacy.all.first?.body == body && legacy.all.first?.path == c.updatePath(id), "the original request did not reach the legacy provider exactly once")
        #expect(sandbox.all.count == 1 && sandbox.all.first?.response.status == 404, "OpenPush was sent more than the one update it did not know")
        let row = try #require(try Self.newest(proxy))
        #expect(row.outcome == "not_on_openpush")
        let attempts = UpstreamAttempt.parse(row.attempts)
        #expect(attempts.map(\.provider) == ["openpush", "legacy:\(c.dialect.rawValue)"] && attempts.map(\.answered) == [false, true])
        #expect(attempts.map(\.status) == [404, 200])
        // Learned: the next update goes straight to the legacy provider.
        _ = try await proxy.send(path: c.updatePath(id), body: c.update(id, "end"))
        #expect(legacy.all.count == 2 && sandbox.all.count == 1)
        await proxy.stop()
    }

    @Test(arguments: cases) func anUpdateTheLegacyProviderDoesNotKnowGoesToOpenPushInObserve(_ c: Case) async throws {
        let sandbox = try RecordingSandbox()
        let legacy = try FakeLegacyProvider(c.dialect) { _ in
            HTTPResponse(status: 404, headers: [("Content-Type", "application/json")], body: Array(#"{"errors":["Not Found"]}"#.utf8))
        }
        let proxy = try Self.proxy(sandbox, legacy: legacy, mode: .observe)
        // order_77001 is open on the sandbox (its seed): an activity started on OpenPush before PushBridge was in the path.
        let body = c.update("order_77001", "update")
        let reply = try await proxy.send(path: c.updatePath("order_77001"), body: body)
        #expect((200..<300).contains(reply.status), "the caller did not get OpenPush's answer: \(String(decoding: reply.body, as: UTF8.self))")
        #expect(legacy.all.count == 1 && sandbox.all.count == 1 && sandbox.all.first?.path == "/apps/app_3f9c2b/live_activities/order_77001/notifications")
        let row = try #require(try Self.newest(proxy))
        #expect(row.outcome == "not_on_legacy")
        #expect(UpstreamAttempt.parse(row.attempts).map(\.provider) == ["legacy:\(c.dialect.rawValue)", "openpush"])
        await proxy.stop()
    }
}
