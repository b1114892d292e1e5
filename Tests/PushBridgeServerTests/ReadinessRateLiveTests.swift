import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Issue 29, item 7: the rate verdict counts what OpenPush counts, OpenPush sends per OpenPush
/// app, across the source apps that share it. Real traffic through the proxy in `observe`
/// (the legacy doubles answer; every translation is audited), its clock held inside one
/// minute, then readiness over the real SQLite audit.
@Suite(.serialized) struct ReadinessRateLiveTests {
    /// 2023-11-14T22:14:00Z, a minute's start: every request below is received in it.
    static let minute: Int64 = 1_700_000_040_000

    /// A proxy with every standard app in observe in front of the legacy doubles, on a clock
    /// that stays in ``minute``.
    static func proxy(_ legacy: RolloutLiveTests.Legacy) throws -> ProxyHarness {
        let configuration = TestConfiguration(upstream: try RecordingSandbox().baseURL).with {
            $0.legacy = legacy.urls
            $0.setMode(.observe)
            $0.app("pw") { $0.segmentMap = TestApp.pushwooshSegmentMap }
        }
        return try ProxyHarness(.inProcess, configuration: configuration, clock: ManualDeliveryClock(startMilliseconds: minute + 1_000))
    }

    /// The verdict of `app`, judged with the proxy's configuration and thresholds low enough
    /// that only the rate can make it not ready.
    static func verdict(_ proxy: ProxyHarness, _ app: String) throws -> AppReadiness? {
        var settings = ReadinessSettings(try proxy.configuration.load())
        settings.thresholds.minRequests = 1
        settings.thresholds.minShadowed = 0
        return try AuditReader(path: proxy.auditPath).readiness(ReportFilter(app: app), settings: settings).apps.first
    }

    /// A Pushwoosh start of five notifications (five OpenPush starts).
    static func fiveNotifications(_ request: Int) -> [UInt8] {
        let one = { (n: Int) in
            #"{"content":"c","title":"t","live_activity":{"event":"start","title":"o","content-state":{"status":"x"},"attributes-type":"FoodDeliveryAttributes","attributes":{}},"live_activity_id":"rate_\#(request)_\#(n)","users":["alice"]}"#
        }
        return Array(#"{"request":{"application":"XXXXX-XXXXX","auth":"SECRET_API_TOKEN","notifications":[\#((0..<5).map(one).joined(separator: ","))]}}"#.utf8)
    }

    @Test func fourteenPushwooshRequestsOfFiveNotificationsAreSeventySendsAndNotReady() async throws {
        let legacy = try RolloutLiveTests.Legacy()
        let proxy = try Self.proxy(legacy)
        for i in 0..<14 {
            #expect(try await proxy.send(path: "/json/1.3/startLiveActivity", body: Self.fiveNotifications(i)).status == 200)
        }
        let pw = try #require(try Self.verdict(proxy, "pw"))
        #expect(pw.busiestMinute == BusiestMinute(start: Self.minute, requests: 70, openPushApp: "app_3f9c2b", apps: ["pw"]), "\(String(describing: pw.busiestMinute))")
        #expect(pw.verdict == .notReady)
        #expect(pw.reasons.contains { $0.hasPrefix("busiest minute 2023-11-14T22:14:00.000Z had 70 OpenPush sends to OpenPush app app_3f9c2b; OpenPush accepts 60 per 60 s") },
                "\(pw.reasons)")
        await proxy.stop()
        await ShadowPacingLiveTests.stop(legacy)
    }

    @Test func twoSourceAppsOnOneOpenPushAppAtThirtyFiveAMinuteEachAreBothNotReady() async throws {
        let legacy = try RolloutLiveTests.Legacy()
        let proxy = try Self.proxy(legacy)
        for i in 0..<35 {
            for source in [TestApp.os.sourceAppId, TestApp.osMapped.sourceAppId] {
                let reply = try await proxy.send(path: "/apps/\(source)/activities/activity/DeliveryAttributes", body: ReadinessRun.start("\(source.prefix(4))_\(i)"))
                #expect(reply.status == 200)
            }
        }
        for (app, other) in [("os", "os-mapped"), ("os-mapped", "os")] {
            let verdict = try #require(try Self.verdict(proxy, app))
            #expect(verdict.busiestMinute == BusiestMinute(start: Self.minute, requests: 70, openPushApp: "app_3f9c2b", apps: ["os", "os-mapped"]),
                    "\(app): \(String(describing: verdict.busiestMinute))")
            #expect(verdict.verdict == .notReady, "\(app) at 35 a minute was not flagged though its OpenPush app took 70")
            #expect(verdict.reasons.contains { $0.contains("had 70 OpenPush sends to OpenPush app app_3f9c2b with \(other) together") }, "\(verdict.reasons)")
        }
        await proxy.stop()
        await ShadowPacingLiveTests.stop(legacy)
    }
}
