import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Issue 29's record scenarios (``ActivityRecordStage``) through one proxy listening on
/// 127.0.0.1 with its SQLite audit, the sandbox as OpenPush and a recording legacy provider.
@Suite(.serialized) struct ActivityRecordLiveTests {
    /// Runs `scenario` on a proxy running `configuration(base, legacy URL)`.
    private func run(dialect: DialectName, openPush: RecordingSandbox? = nil, _ configuration: (TestConfiguration, String) -> TestConfiguration,
                     _ scenario: (ActivityRecordStage) async throws -> Void) async throws {
        let sandbox = try openPush ?? RecordingSandbox(), legacy = try FakeLegacyProvider(dialect)
        let proxy = try ProxyHarness(.live, configuration: configuration(TestConfiguration(upstream: sandbox.baseURL), legacy.baseURL))
        let send: @Sendable (String, [UInt8]) async throws -> ProxyReply = { try await proxy.send(path: $0, body: $1) }
        let stage = ActivityRecordStage(first: send, second: send, ledger: proxy.runtime.audit.activities, reconfigure: { edit in
            proxy.runtime.reload(try proxy.configuration.with(edit).load())
        }, openPush: sandbox, legacy: legacy)
        do { try await scenario(stage) } catch { Issue.record(error) }
        await proxy.stop()
        await legacy.stop()
    }

    @Test func item1_anotherSourceAppsUpdateAndEndAreRefusedAuditedAndSentNowhere() async throws {
        try await run(dialect: .onesignal, ActivityRecordStage.twoTenants) { stage in
            try await stage.crossTenantEventsAreRefused()
        }
    }

    @Test func item1_theRefusalIsAuditedAsRejectedUnderTheAppThatAsked() async throws {
        let sandbox = try RecordingSandbox(), legacy = try FakeLegacyProvider(.onesignal)
        let proxy = try ProxyHarness(.live, configuration: ActivityRecordStage.twoTenants(TestConfiguration(upstream: sandbox.baseURL), legacy: legacy.baseURL))
        let affinity = ActivityAffinityTests.cases[0]
        _ = try await proxy.send(path: affinity.startPath, body: affinity.start("tenant_a_private_2"))
        _ = try await proxy.send(path: ActivityRecordStage.mappedPrefix + "/live_activities/tenant_a_private_2/notifications", body: affinity.update("tenant_a_private_2", "update"))
        let row = try #require(try ActivityAffinityTests.newest(proxy))
        #expect(row.outcome == "rejected" && row.entry.appName == "os-mapped" && row.responseStatus == 409 && row.upstreamStatus == nil)
        #expect(row.errorMessage?.contains("another source app") == true, "\(String(describing: row.errorMessage))")
        await proxy.stop()
        await legacy.stop()
    }

    @Test func item3_anUpdateRacingItsStartWaitsForItAndFollowsItToOpenPush() async throws {
        try await run(dialect: .pushwoosh, openPush: try ActivityRecordStage.slowStarts(), ActivityRecordStage.pushwooshOnOpenPush) { stage in
            try await stage.anUpdateRacingItsStartFollowsIt()
        }
    }

    /// The wait is bounded: a start OpenPush holds longer than the router's 2 s wait is
    /// followed where it was sent, without a fallback (the legacy provider never gets an
    /// update of an activity placed on OpenPush), and the start's own answer still places it.
    @Test func item3_anUpdateWhoseStartOutlastsTheWaitGoesWhereTheStartWasSentNeverToTheFallback() async throws {
        // OpenPush holds the start until the update has been answered: longer than the wait, whatever the machine's speed.
        let gate = AsyncGate()
        defer { gate.open() }
        let held = try RecordingSandbox(behaviour: { request in
            if request.path.contains("/activities/activity/") { await gate.wait() }
            return nil
        })
        try await run(dialect: .pushwoosh, openPush: held, ActivityRecordStage.pushwooshOnOpenPush) { stage in
            let affinity = ActivityAffinityTests.cases[1]
            let first = stage.first
            let start = Task { try await first(affinity.startPath, affinity.start("slow_1")) }
            let inFlight = try await firstValue(within: 10) { try await stage.record("pw", "slow_1").flatMap { $0.startState == .inFlight ? $0 : nil } }
            #expect(inFlight != nil, "the start's record was not in flight while OpenPush had it")
            _ = try await stage.second(affinity.updatePath("slow_1"), affinity.update("slow_1", "update"))
            #expect(stage.legacy.all.isEmpty, "an update of an activity sent to OpenPush fell back to the legacy provider")
            gate.open()
            #expect(try await start.value.status == 200)
            #expect(try await stage.record("pw", "slow_1")?.startState == .accepted)
        }
    }

    @Test func item4_aStartSentAgainAfterThePercentRoseGoesWhereItLivesAndSoDoesItsEnd() async throws {
        try await run(dialect: .onesignal, ActivityRecordStage.rolloutAtZero) { stage in
            try await stage.aStartSentAgainGoesWhereItLives()
        }
    }
}
