import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// The rollout stage through the proxy, with the sandbox as OpenPush and recording legacy
/// doubles: the old-app population falls back to the legacy provider, the same user lands on
/// the same side on every instance, and an OpenPush error rate rolls the app back until resumed.
@Suite(.serialized) struct RolloutLiveTests {
    /// One dialect's start for a user.
    struct Case: Sendable, CustomTestStringConvertible {
        var app: String
        var dialect: DialectName
        var path: String
        var body: @Sendable (_ user: String, _ activity: String) -> [UInt8]
        var testDescription: String { dialect.rawValue }
    }

    static let cases: [Case] = [
        Case(app: "os", dialect: .onesignal, path: "/apps/app_3f9c2b/activities/activity/DeliveryAttributes") { user, activity in
            Array(#"{"event":"start","activity_id":"\#(activity)","name":"Order","event_attributes":{"orderNumber":"1"},"event_updates":{"stage":"out"},"headings":{"en":"On the way"},"contents":{"en":"Soon"},"include_aliases":{"external_id":["\#(user)"]}}"#.utf8)
        },
        Case(app: "pw", dialect: .pushwoosh, path: "/json/1.3/startLiveActivity") { user, activity in
            Array(#"{"request":{"application":"XXXXX-XXXXX","auth":"SECRET_API_TOKEN","notifications":[{"content":"c","title":"t","live_activity":{"event":"start","title":"o","content-state":{"status":"x"},"attributes-type":"FoodDeliveryAttributes","attributes":{}},"live_activity_id":"\#(activity)","users":["\#(user)"]}]}}"#.utf8)
        },
        Case(app: "bk", dialect: .buzzkit, path: "/v1/live-activities/send") { user, activity in
            Array(#"{"to":"\#(user)","event":"start","activityId":"\#(activity)","attributesType":"DeliveryAttributes","attributes":{"orderNumber":"1"},"contentState":{"stage":"x"},"alert":{"title":"Hi","body":"There"}}"#.utf8)
        },
    ]

    /// The three doubles and the `legacy` object naming them.
    struct Legacy {
        let os: FakeLegacyProvider, pw: FakeLegacyProvider, bk: FakeLegacyProvider
        init() throws {
            os = try FakeLegacyProvider(.onesignal)
            pw = try FakeLegacyProvider(.pushwoosh)
            bk = try FakeLegacyProvider(.buzzkit)
        }
        /// The `legacy` URLs naming them.
        var urls: [DialectName: String] { [.onesignal: os.baseURL, .pushwoosh: pw.baseURL, .buzzkit: bk.baseURL] }
        subscript(_ dialect: DialectName) -> FakeLegacyProvider {
            switch dialect {
            case .onesignal: os
            case .pushwoosh: pw
            case .buzzkit: bk
            }
        }
    }

    /// The three apps (`os`, `pw`, `bk`) before `openPush`, each in rollout with `rollout`,
    /// `legacy` their legacy providers.
    static func configuration(_ openPush: RecordingSandbox, _ legacy: Legacy, rollout: TestApp.Rollout) -> TestConfiguration {
        TestConfiguration(upstream: openPush.baseURL, apps: TestApp.onePerDialect).with {
            $0.legacy = legacy.urls
            $0.setMode(.rollout)
            for i in $0.apps.indices { $0.apps[i].rollout = rollout }
        }
    }

    static func row(_ proxy: ProxyHarness, _ requestId: String?) throws -> AuditRecord? {
        guard let requestId else { return nil }
        return try AuditReader(path: proxy.auditPath).show(requestId: requestId)
    }

    @Test(arguments: cases)
    func anOldAppUserWithNoPushToStartTokenOnOpenPushIsDeliveredByTheLegacyProvider(_ c: Case) async throws {
        let openPush = try RecordingSandbox(), legacy = try Legacy()
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, legacy, rollout: .init(percent: 100)))
        // carol is not in the sandbox: still on the old app, no push-to-start token at OpenPush.
        let body = c.body("carol", "old_app_1")
        let reply = try await proxy.send(path: c.path, body: body)
        #expect(openPush.all.count == 1 && openPush.all.first?.response.status == 400)
        let got = try #require(legacy[c.dialect].all.first)
        #expect(legacy[c.dialect].all.count == 1 && got.body == body, "the legacy provider did not get the original request once")
        #expect(reply.status == 200 && reply.body == got.response.body, "the caller was not answered from the legacy side")
        let record = try #require(try Self.row(proxy, reply.headers["x-pushbridge-request-id"]))
        #expect(record.outcome == "not_on_openpush" && record.upstreamStatus == 200, "\(record.outcome) \(String(describing: record.upstreamStatus))")
        #expect((record.errorMessage ?? "").contains("no push-to-start token"))
        let attempts = try JSONParser.parse(Array((record.attempts ?? "[]").utf8)).arrayValue ?? []
        #expect(attempts.count == 2, "both attempts are recorded: \(record.attempts ?? "")")
        // alice is on the new app: OpenPush takes her start, the legacy provider gets nothing more.
        let alice = try await proxy.send(path: c.path, body: c.body("alice", "new_app_1"))
        #expect(alice.status == (c.dialect == .onesignal ? 201 : 200) && openPush.all.count == 2 && openPush.all.last?.response.status == 201)
        #expect(legacy[c.dialect].all.count == 1)
        #expect(try Self.row(proxy, alice.headers["x-pushbridge-request-id"])?.outcome == "forwarded")
        await proxy.stop()
    }

    @Test(arguments: cases)
    func withoutFallbackTheCallerGetsOpenPushsAnswerAndTheRowSaysNotOnOpenPush(_ c: Case) async throws {
        let openPush = try RecordingSandbox(), legacy = try Legacy()
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, legacy, rollout: .init(percent: 100, fallbackToLegacy: false)))
        let reply = try await proxy.send(path: c.path, body: c.body("carol", "old_app_2"))
        #expect(openPush.all.count == 1 && legacy[c.dialect].all.isEmpty)
        #expect(String(decoding: reply.body, as: UTF8.self).contains("push-to-start token"), "\(String(decoding: reply.body, as: UTF8.self))")
        let record = try #require(try Self.row(proxy, reply.headers["x-pushbridge-request-id"]))
        #expect(record.outcome == "not_on_openpush" && record.upstreamStatus == 400)
        await proxy.stop()
    }

    @Test func theSameUserLandsOnTheSameSideOnEveryInstance() async throws {
        let c = Self.cases[0]
        let users = (0..<40).map { "user_\($0)" }
        var sides: [[String]] = []
        for _ in 0..<2 {
            let openPush = try RecordingSandbox(advancePerRequest: 2), legacy = try Legacy()
            let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, legacy, rollout: .init(percent: 50, fallbackToLegacy: false)))
            for (i, user) in users.enumerated() { _ = try await proxy.send(path: c.path, body: c.body(user, "sticky_\(i)")) }
            let onOpenPush = openPush.all.compactMap { try? JSONParser.parse($0.body).objectValue?["include_aliases"]?.objectValue?["external_id"]?.arrayValue?.first?.stringValue }
            let onLegacy = legacy.os.all.compactMap { try? JSONParser.parse($0.body).objectValue?["include_aliases"]?.objectValue?["external_id"]?.arrayValue?.first?.stringValue }
            #expect(onOpenPush.count + onLegacy.count == users.count && Set(onOpenPush).isDisjoint(with: onLegacy))
            #expect(onOpenPush.sorted() == users.filter { RolloutCohort.bucket(app: "os", key: "alias:external_id:\($0)").bucket < 50 }.sorted())
            sides.append(onOpenPush.sorted())
            await proxy.stop()
        }
        #expect(sides[0] == sides[1], "two instances placed the same users differently")
        #expect(!sides[0].isEmpty && sides[0].count < users.count)
    }

    @Test(arguments: cases)
    func anOpenPushErrorRateRollsTheAppBackUntilResumed(_ c: Case) async throws {
        let openPush = try RecordingSandbox { request in
            request.path.contains("/activities/activity/") ? .json(400, .object(["errors": .array([.string("event_updates: broken on purpose")])])) : nil
        }
        let legacy = try Legacy()
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, legacy, rollout: .init(percent: 100)))
        let window = RolloutWindow.minimum
        for i in 0..<window - 1 { _ = try await proxy.send(path: c.path, body: c.body("alice", "broken_\(i)")) }
        #expect(proxy.runtime.rollouts.rollback(of: c.app) == nil, "rolled back before the window was full")
        _ = try await proxy.send(path: c.path, body: c.body("alice", "broken_last"))
        let rollback = try #require(proxy.runtime.rollouts.rollback(of: c.app))
        #expect(rollback.threshold == "max_openpush_error_rate" && rollback.evidence.hasPrefix("\(window) of \(window) OpenPush calls"))
        #expect(proxy.log.lines.contains { $0.contains("level=error") && $0.contains("ROLLOUT ROLLED BACK") && $0.contains("threshold=max_openpush_error_rate") && $0.contains("\(window) of \(window)") },
                "\(proxy.log.lines)")
        let metrics = String(decoding: try await proxy.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("pushbridge_rollout_rolled_back{app=\"\(c.app)\"} 1") && metrics.contains("pushbridge_rollout_rollbacks_total{app=\"\(c.app)\"} 1"), "\(metrics)")
        // Rolled back: the next start goes to the legacy provider, OpenPush gets nothing.
        #expect(openPush.all.count == window && legacy[c.dialect].all.isEmpty)
        let after = try await proxy.send(path: c.path, body: c.body("alice", "after_1"))
        #expect(after.status == 200 && legacy[c.dialect].all.count == 1 && openPush.all.count == window)
        // The state is in the audit database, where `rollout resume` clears it for the running proxy.
        #expect(try AuditReader(path: proxy.auditPath).rollbacks().map(\.app) == [c.app])
        let config = proxy.directory.appendingPathComponent("proxy.json")
        try proxy.configuration.write(to: config.path)
        let resumed = try await CLIRunner.runAsync(["rollout", "resume", c.app, "--config", config.path], environment: [:])
        #expect(resumed.status == 0 && resumed.stdout.contains("resumed app \(c.app)'s rollout"), "\(resumed.stdout)\(resumed.stderr)")
        #expect(await eventually { proxy.runtime.rollouts.rollback(of: c.app) == nil })
        _ = try await proxy.send(path: c.path, body: c.body("alice", "resumed_1"))
        #expect(openPush.all.count == window + 1 && legacy[c.dialect].all.count == 1, "after resume the start did not go to OpenPush")
        let again = try await CLIRunner.runAsync(["rollout", "resume", c.app, "--db", proxy.auditPath], environment: [:])
        #expect(again.status == 1 && again.stderr.contains("is not rolled back"))
        await proxy.stop()
    }

    @Test func aReloadThatChangesTheRolloutResumesItAndOneThatDoesNotKeepsTheRollback() async throws {
        let c = Self.cases[0]
        let openPush = try RecordingSandbox { request in
            request.path.contains("/activities/activity/") ? .json(400, .object(["errors": .array([.string("event_updates: broken on purpose")])])) : nil
        }
        let legacy = try Legacy()
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, legacy, rollout: .init(percent: 100)))
        for i in 0..<RolloutWindow.minimum { _ = try await proxy.send(path: c.path, body: c.body("alice", "reload_\(i)")) }
        #expect(proxy.runtime.rollouts.rollback(of: "os") != nil)
        proxy.runtime.reload(try proxy.configuration.load())
        #expect(proxy.runtime.rollouts.rollback(of: "os") != nil, "a reload that left the rollout alone resumed it")
        proxy.runtime.reload(try proxy.configuration.with { c in for i in c.apps.indices { c.apps[i].rollout?.percent = 90 } }.load())
        #expect(proxy.runtime.rollouts.rollback(of: "os") == nil && proxy.runtime.rollouts.rollback(of: "pw") == nil)
        #expect(proxy.log.lines.contains { $0.contains("rollout resumed") && $0.contains("app=os") })
        #expect(try AuditReader(path: proxy.auditPath).rollbacks().isEmpty)
        await proxy.stop()
    }

    @Test func twoInstancesSharingAPostgreSQLAuditShareTheRollbackAndItsResume() async throws {
        let c = Self.cases[0]
        let database = try PostgresTestCluster.start().makeDatabase()
        let broken = { @Sendable (request: HTTPRequest) -> HTTPResponse? in
            request.path.contains("/activities/activity/") ? .json(400, .object(["errors": .array([.string("event_updates: broken on purpose")])])) : nil
        }
        let openPushA = try RecordingSandbox(behaviour: broken), openPushB = try RecordingSandbox(behaviour: broken)
        let legacyA = try Legacy(), legacyB = try Legacy()
        let a = try ProxyHarness(.inProcess, configuration: Self.configuration(openPushA, legacyA, rollout: .init(percent: 100)).with { $0.auditDatabase = database })
        let b = try ProxyHarness(.inProcess, configuration: Self.configuration(openPushB, legacyB, rollout: .init(percent: 100)).with { $0.auditDatabase = database })
        for i in 0..<RolloutWindow.minimum { _ = try await a.send(path: c.path, body: c.body("alice", "fleet_\(i)")) }
        #expect(a.runtime.rollouts.rollback(of: "os") != nil)
        // B never saw an OpenPush error; it reads the rollback from the shared audit.
        #expect(await eventually { b.runtime.rollouts.rollback(of: "os") != nil })
        #expect(b.log.lines.contains { $0.contains("ROLLOUT ROLLED BACK") && $0.contains("threshold=max_openpush_error_rate") })
        _ = try await b.send(path: c.path, body: c.body("alice", "fleet_b_1"))
        #expect(openPushB.all.isEmpty && legacyB.os.all.count == 1, "instance B still sent a new start to OpenPush")
        let resumed = try await CLIRunner.runAsync(["rollout", "resume", "os", "--db", database], environment: [:])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(await eventually { a.runtime.rollouts.rollback(of: "os") == nil && b.runtime.rollouts.rollback(of: "os") == nil })
        _ = try await b.send(path: c.path, body: c.body("alice", "fleet_b_2"))
        #expect(openPushB.all.count == 1 && legacyB.os.all.count == 1)
        await a.stop()
        await b.stop()
    }

    @Test func segmentStartsGoWhereSegmentStartsSaysAndBothSendsToBothWithOpenPushAnswering() async throws {
        let c = Self.cases[0]
        let segment = Array(String(decoding: c.body("x", "seg_1"), as: UTF8.self)
            .replacingOccurrences(of: #""include_aliases":{"external_id":["x"]}"#, with: #""included_segments":["seg_01hq8n4t2v"]"#).utf8)
        for (where_, openPushCount, legacyCount) in [(RolloutSettings.SegmentStarts.legacy, 0, 1), (.openpush, 1, 0), (.both, 1, 1)] {
            let openPush = try RecordingSandbox(), legacy = try Legacy()
            let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, legacy, rollout: .init(percent: 100, segmentStarts: where_)))
            let reply = try await proxy.send(path: c.path, body: segment)
            #expect(openPush.all.count == openPushCount && legacy.os.all.count == legacyCount, "segment_starts \(where_)")
            #expect(reply.status == (openPushCount == 1 ? 201 : 200), "segment_starts \(where_): \(reply.status)")
            if legacyCount == 1 { #expect(legacy.os.all.first?.body == segment) }
            await proxy.stop()
        }
    }

    @Test func atPercentZeroAStartIsAnObserveRowAndAt100AnOpenPushOne() async throws {
        let c = Self.cases[0]
        for percent in [0, 100] {
            let openPush = try RecordingSandbox(), legacy = try Legacy()
            let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, legacy, rollout: .init(percent: percent)))
            let reply = try await proxy.send(path: c.path, body: c.body("alice", "edge_\(percent)"))
            let record = try #require(try Self.row(proxy, reply.headers["x-pushbridge-request-id"]))
            if percent == 0 {
                #expect(openPush.all.isEmpty && legacy.os.all.count == 1 && reply.body == legacy.os.all.first?.response.body)
                #expect(record.outcome == "translated" && (record.errorMessage ?? "").hasPrefix("observe: nothing was sent to OpenPush"), "\(record.errorMessage ?? "")")
            } else {
                #expect(openPush.all.count == 1 && legacy.os.all.isEmpty && reply.status == 201)
                #expect(record.outcome == "forwarded" && record.upstreamStatus == 201)
            }
            await proxy.stop()
        }
    }
}
