import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Affinity across instances: two real `pushbridge serve` processes on one PostgreSQL
/// database, the sandbox as OpenPush and a recording legacy provider on 127.0.0.1.
@Suite(.serialized) struct ActivityAffinityFleetTests {
    @Test func aStartThroughOneInstanceIsUpdatedThroughAnotherAtItsHolderAfterAModeChangeOnBoth() async throws {
        let legacy = try FakeLegacyProvider(.onesignal)
        let fleet = try InstanceFleet(configuration: ActivityAffinityTests.configuration(InstanceFleet.standard, legacy: legacy.baseURL, mode: .observe))
        do {
            let a = try await fleet.start("a"), b = try await fleet.start("b")
            let c = try #require(ActivityAffinityTests.cases.first { $0.dialect == .onesignal })
            let auth = [("Authorization", "Key \(ProxyHarness.oneSignalKey)"), ("Content-Type", "application/json")]
            let started = try await RawHTTPClient.send(port: a.port, method: "POST", target: c.startPath, headers: auth, body: c.start("fleet_1"))
            #expect(started.status == 200 && legacy.all.count == 1, "the observed start did not reach the legacy provider")
            try await fleet.reconfigure { $0.setMode(.openpush) }
            let body = c.update("fleet_1", "update")
            let updated = try await RawHTTPClient.send(port: b.port, method: "POST", target: c.updatePath("fleet_1"), headers: auth, body: body)
            #expect(updated.status == 200, "instance B did not route the update to the holder: \(String(decoding: updated.body, as: UTF8.self))")
            #expect(legacy.all.count == 2 && legacy.all.last?.body == body)
            #expect(fleet.upstream.all.isEmpty, "instance B sent OpenPush an activity it does not hold")
            // A start through B after the change goes to OpenPush, as the mode now says.
            let next = try await RawHTTPClient.send(port: b.port, method: "POST", target: c.startPath, headers: auth, body: c.start("fleet_2"))
            #expect(next.status == 201 && fleet.upstream.all.count == 1 && legacy.all.count == 2)
        } catch {
            Issue.record(error)
        }
        await fleet.shutDown()
        await legacy.stop()
    }
}
