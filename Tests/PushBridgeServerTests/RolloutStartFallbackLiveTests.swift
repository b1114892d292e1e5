import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 29 item 9: during a rollout with `fallback_to_legacy`, a start OpenPush refuses for a
/// reason that is not the caller's goes to the legacy side and is placed there (its ledger
/// record says legacy, its end goes there), so a bad key costs no start while the rollback
/// window makes up its mind. Real proxy over HTTP, a real sandbox answering the faults, a
/// recording legacy provider.
@Suite(.serialized) struct RolloutStartFallbackLiveTests {
    /// One refusal OpenPush makes that is not the caller's.
    struct Fault: Sendable, CustomTestStringConvertible {
        var name: String
        var response: @Sendable () async -> HTTPResponse?
        var testDescription: String { name }
    }

    static func refusal(_ status: Int, headers: [(String, String)] = []) -> @Sendable () async -> HTTPResponse? {
        { HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(#"{"errors":["refused by the test"]}"#.utf8)) }
    }

    static let faults: [Fault] = [
        Fault(name: "500", response: refusal(500)),
        Fault(name: "503", response: refusal(503)),
        Fault(name: "401", response: refusal(401)),
        Fault(name: "403", response: refusal(403)),
        Fault(name: "429", response: refusal(429, headers: [("Retry-After", "1")])),
        // Past upstream_timeout_ms (300): the sandbox answers nothing in time. The sleep is the
        // fault itself (an upstream that does not answer), not a wait for a condition.
        Fault(name: "timeout", response: {
            try? await Task.sleep(for: .seconds(2))
            return nil
        }),
    ]

    static let marker = "faulty_"
    static let path = RolloutLiveTests.cases[0].path

    static func start(_ user: String, _ activity: String) -> [UInt8] { RolloutLiveTests.cases[0].body(user, activity) }

    static func end(_ activity: String) -> (path: String, body: [UInt8]) {
        ("/apps/app_3f9c2b/live_activities/\(activity)/notifications",
         Array(#"{"event":"end","name":"Order","event_updates":{"stage":"delivered"},"contents":{"en":"Delivered"}}"#.utf8))
    }

    /// App `os` in rollout 100% with fallback before `openPush`, `legacy` its legacy provider,
    /// one attempt per send and a 300 ms upstream timeout.
    static func configuration(_ openPush: RecordingSandbox, _ legacy: FakeLegacyProvider) -> TestConfiguration {
        TestConfiguration(upstream: openPush.baseURL, apps: [TestApp.os]).with {
            $0.legacy = [.onesignal: legacy.baseURL]
            $0.setMode(.rollout)
            $0.app("os") { $0.rollout = .init(percent: 100, fallbackToLegacy: true) }
            $0.delivery.maxAttempts = 1
            $0.limits.upstreamConnectTimeoutMs = 200
            $0.limits.upstreamTimeoutMs = 300
        }
    }

    static func holder(_ proxy: ProxyHarness, _ activity: String) async throws -> ActivityHolder? {
        try await proxy.runtime.audit.activities.record(app: "os", activityId: activity, now: AuditClock.nowMilliseconds())?.holder
    }

    @Test(arguments: faults)
    func aStartOpenPushRefusesForAReasonNotTheCallersIsDeliveredAndPlacedOnTheLegacySide(_ fault: Fault) async throws {
        let openPush = try RecordingSandbox(behaviour: { request in
            String(decoding: request.body, as: UTF8.self).contains(Self.marker) ? await fault.response() : nil
        })
        let legacy = try FakeLegacyProvider(.onesignal)
        let proxy = try ProxyHarness(.live, configuration: Self.configuration(openPush, legacy))
        let activity = "\(Self.marker)\(fault.name)"
        let body = Self.start("alice", activity)
        let reply = try await proxy.send(path: Self.path, body: body)
        let text = String(decoding: reply.body, as: UTF8.self)
        let got = legacy.all.first
        #expect(legacy.all.count == 1 && got?.body == body, "the legacy provider did not get the original start once: \(reply.status) \(text)")
        #expect(reply.status == 200 && reply.body == got?.response.body, "the caller was not answered from the legacy side: \(reply.status) \(text)")
        #expect(try await Self.holder(proxy, activity) == .legacy)
        let row = try #require(try RolloutLiveTests.row(proxy, reply.headers["x-pushbridge-request-id"]))
        #expect(row.outcome == "forwarded" && (row.errorMessage ?? "").hasPrefix(LegacyMode.rolloutMessage), "\(row.outcome) \(row.errorMessage ?? "")")
        // Its end goes where it lives.
        let end = Self.end(activity)
        let sentToOpenPush = openPush.all.count
        #expect(try await proxy.send(path: end.path, body: end.body).status == 200)
        #expect(legacy.all.count == 2 && openPush.all.count == sentToOpenPush)
        await proxy.stop()
        await legacy.stop()
    }

    @Test(.timeLimit(.minutes(2)))
    func aBadOpenPushKeySetByReloadLosesNoStartWhileTheWindowRollsTheAppBack() async throws {
        let openPush = try RecordingSandbox(), legacy = try FakeLegacyProvider(.onesignal)
        let proxy = try ProxyHarness(.live, configuration: Self.configuration(openPush, legacy))
        var environment = ProxyHarness.environment
        environment["OP_KEY"] = "not-the-openpush-key"
        proxy.runtime.reload(try proxy.configuration.load(environment: environment))
        let count = RolloutWindow.minimum + 3
        for i in 0..<count {
            let reply = try await proxy.send(path: Self.path, body: Self.start("alice", "badkey_\(i)"))
            #expect(reply.status == 200, "start \(i) was lost: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
            #expect(try await Self.holder(proxy, "badkey_\(i)") == .legacy, "start \(i) is not placed on the legacy side")
        }
        #expect(legacy.all.count == count)
        #expect(openPush.all.allSatisfy { $0.response.status == 401 || $0.response.status == 403 } && openPush.all.count >= RolloutWindow.minimum)
        #expect(proxy.runtime.rollouts.rollback(of: "os") != nil, "the window rolled the app back")
        await proxy.stop()
        await legacy.stop()
    }
}
