import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Issue 29, item 6: shadow sends go through the same pacer as live sends, live first.
/// `config/demo-migration.json`'s shape: a Pushwoosh app shadowing to OpenPush (legacy
/// primary) and a OneSignal app in rollout at 100%, both on OpenPush app `app_3f9c2b`. The
/// sandbox's clock is frozen, so it takes 60 sends in all for the whole test, as OpenPush's
/// 60 a minute does for a test shorter than a minute: any send past the 60th meets its 429.
@Suite(.serialized) struct ShadowPacingLiveTests {
    /// The rollout app's starts: 35, fewer than 60, so the rollout alone never needs to wait.
    static let liveStarts = 35

    /// The rollout app `os` (100%, fallback to legacy) and the shadowing app `pw` (legacy
    /// primary, OpenPush shadow), a shadow waiting at most 300 ms for a spare slot.
    static func configuration(_ base: TestConfiguration, legacy: RolloutLiveTests.Legacy) -> TestConfiguration {
        base.with {
            $0.apps = [TestApp.os, TestApp.pw]
            $0.app("pw") {
                $0.segmentMap = TestApp.pushwooshSegmentMap
                $0.mode = .shadow
                $0.shadow = .init(primary: .legacy)
            }
            $0.app("os") {
                $0.mode = .rollout
                $0.rollout = .init(percent: 100)
            }
            $0.legacy = legacy.urls
            $0.delivery.shadowMaxWaitMs = 300
        }
    }

    /// The rollout app's start for alice (on the new app: OpenPush takes it).
    static func liveStart(_ i: Int) -> [UInt8] { RolloutLiveTests.cases[0].body("alice", "live_\(i)") }
    /// The shadowing app's start.
    static func shadowStart(_ i: Int) -> [UInt8] { RolloutLiveTests.cases[1].body("alice", "shadow_\(i)") }

    /// What every run checks once the shadows are done: no send met a 429, every live start
    /// was OpenPush's 201, the shadows that went are within the budget live sends left, the
    /// rest are skipped rows that say why, counted by `pushbridge_shadow_skipped_total`.
    static func check(live: [Int], upstream: RecordingSandbox, comparisons: [(verdict: String, error: String?)], skippedMetric: Double?) {
        #expect(live.count == liveStarts && live.allSatisfy { $0 == 201 }, "a rollout start was not OpenPush's 201: \(live)")
        let limited = upstream.all.filter { $0.response.status == 429 }.count
        #expect(limited == 0, "OpenPush answered 429 to \(limited) sends: shadow traffic spent the live budget")
        #expect(upstream.all.count <= 60)
        #expect(comparisons.count == liveStarts, "\(comparisons.count) comparison rows")
        let skipped = comparisons.filter { $0.verdict == ShadowComparison.Verdict.shadowSkipped.rawValue }
        let sent = comparisons.count - skipped.count
        #expect(sent > 0, "no shadow was sent at all: spare budget went unused")
        #expect(!skipped.isEmpty, "every shadow was sent: the live reserve was not kept")
        #expect(skipped.allSatisfy { ($0.error ?? "").contains("delivery.shadow_max_wait_ms") }, "\(skipped.map { $0.error ?? "-" })")
        #expect(skippedMetric == Double(skipped.count), "pushbridge_shadow_skipped_total \(String(describing: skippedMetric)), \(skipped.count) skipped rows")
        #expect(upstream.all.count == liveStarts + sent, "OpenPush got \(upstream.all.count) sends for \(liveStarts) live and \(sent) shadow")
    }

    /// Stops the legacy doubles.
    static func stop(_ legacy: RolloutLiveTests.Legacy) async {
        for double in [legacy.os, legacy.pw, legacy.bk] { await double.stop() }
    }

    /// A counter's value in a Prometheus text.
    static func counter(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test func theRolloutAppsSendsNeverMeetOpenPushs429BecauseOfShadowTraffic() async throws {
        let openPush = try RecordingSandbox(advancePerRequest: 0), legacy = try RolloutLiveTests.Legacy()
        let proxy = try ProxyHarness(configuration: Self.configuration(TestConfiguration(upstream: openPush.baseURL), legacy: legacy))
        var live: [Int] = []
        for i in 0..<Self.liveStarts {
            live.append(try await proxy.send(path: RolloutLiveTests.cases[0].path, body: Self.liveStart(i)).status)
            #expect(try await proxy.send(path: RolloutLiveTests.cases[1].path, body: Self.shadowStart(i)).status == 200)
            // The first shadow finishes while the window is nearly empty: spare budget exists, however slow the machine.
            if i == 0 { _ = await eventually(30) { ((try? ProxyModesLiveTests.comparisons(proxy.auditPath)) ?? []).count == 1 } }
        }
        #expect(await eventually(30) { ((try? ProxyModesLiveTests.comparisons(proxy.auditPath)) ?? []).count == Self.liveStarts },
                "the shadows never finished")
        let rows = try ProxyModesLiveTests.comparisons(proxy.auditPath).map { (verdict: $0["verdict"]?.textValue ?? "", error: $0["shadow_error"]?.textValue) }
        let metrics = String(decoding: try await proxy.get("/metrics").body, as: UTF8.self)
        Self.check(live: live, upstream: openPush, comparisons: rows, skippedMetric: Self.counter("pushbridge_shadow_skipped_total", in: metrics))
        await proxy.stop()
        await Self.stop(legacy)
    }

    @Test func twoInstancesOnPostgreSQLShareOneBudgetLiveFirst() async throws {
        let legacy = try RolloutLiveTests.Legacy()
        let fleet = try InstanceFleet(configuration: Self.configuration(InstanceFleet.standard, legacy: legacy), upstreamAdvance: 0)
        do {
            // The rollout app's starts through instance a, the shadowing app's through b.
            let a = try await fleet.start("a"), b = try await fleet.start("b")
            let uri = fleet.uri, query = "SELECT verdict, shadow_error FROM shadow_comparisons ORDER BY compared_at"
            var live: [Int] = []
            for i in 0..<Self.liveStarts {
                let c = RolloutLiveTests.cases[0], s = RolloutLiveTests.cases[1]
                live.append(try await RawHTTPClient.send(port: a.port, method: "POST", target: c.path, headers: ProxyHarness.credentials(for: c.path)
                    + [("Content-Type", "application/json")], body: Self.liveStart(i)).status)
                let shadowed = try await RawHTTPClient.send(port: b.port, method: "POST", target: s.path, headers: ProxyHarness.credentials(for: s.path)
                    + [("Content-Type", "application/json")], body: Self.shadowStart(i))
                #expect(shadowed.status == 200)
                if i == 0 { _ = await eventually(30) { ((try? PostgresConnection(uri).execute(query).rows) ?? []).count == 1 } }
            }
            #expect(await eventually(30) { ((try? PostgresConnection(uri).execute(query).rows) ?? []).count == Self.liveStarts }, "the shadows never finished")
            let rows = try PostgresConnection(uri).execute(query).rows.map { (verdict: $0[0] ?? "", error: $0[1]) }
            let metrics = try await RawHTTPClient.send(port: b.port, method: "GET", target: "/metrics", headers: [], body: [])
            Self.check(live: live, upstream: fleet.upstream, comparisons: rows,
                       skippedMetric: Self.counter("pushbridge_shadow_skipped_total", in: String(decoding: metrics.body, as: UTF8.self)))
        } catch {
            Issue.record(error)
        }
        await fleet.shutDown()
        await Self.stop(legacy)
    }
}
