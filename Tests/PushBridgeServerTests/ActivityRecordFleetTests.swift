import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Issue 29's record scenarios (``ActivityRecordStage``) across two real `pushbridge serve`
/// instances on one PostgreSQL audit: what one instance placed, the other reads and follows.
@Suite(.serialized) struct ActivityRecordFleetTests {
    /// Runs `scenario` on instances `a` (first) and `b` (second) running `configuration(standard, legacy URL)`.
    private func run(dialect: DialectName, startDelay: Duration = .zero, _ configuration: (TestConfiguration, String) -> TestConfiguration,
                     _ scenario: (ActivityRecordStage) async throws -> Void) async throws {
        let legacy = try FakeLegacyProvider(dialect)
        let fleet = try InstanceFleet(configuration: configuration(InstanceFleet.standard, legacy.baseURL), startDelay: startDelay)
        do {
            let a = try await fleet.start("a"), b = try await fleet.start("b")
            let (portA, portB) = (a.port, b.port)
            let stage = ActivityRecordStage(first: { try await ActivityRecordStage.post(port: portA, $0, $1) },
                                            second: { try await ActivityRecordStage.post(port: portB, $0, $1) },
                                            ledger: try ActivityLedger(path: fleet.uri), reconfigure: { edit in try await fleet.reconfigure(edit) },
                                            openPush: fleet.upstream, legacy: legacy)
            try await scenario(stage)
        } catch {
            Issue.record(error)
        }
        await fleet.shutDown()
        await legacy.stop()
    }

    @Test func item1_anotherSourceAppsEventsThroughTheOtherInstanceAreRefused() async throws {
        try await run(dialect: .onesignal, ActivityRecordStage.twoTenants) { try await $0.crossTenantEventsAreRefused() }
    }

    @Test func item3_anUpdateThroughTheOtherInstanceWaitsForTheStartInFlight() async throws {
        try await run(dialect: .pushwoosh, startDelay: ActivityRecordStage.startDelay, ActivityRecordStage.pushwooshOnOpenPush) {
            try await $0.anUpdateRacingItsStartFollowsIt()
        }
    }

    @Test func item4_aStartSentAgainThroughTheOtherInstanceGoesWhereItLives() async throws {
        try await run(dialect: .onesignal, ActivityRecordStage.rolloutAtZero) { try await $0.aStartSentAgainGoesWhereItLives() }
    }
}
