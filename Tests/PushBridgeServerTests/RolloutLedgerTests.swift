import Foundation
import Synchronization
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// A rollout's starts in the activity ledger: placed where the provider accepted them, with
/// their cohort key's fingerprint, and their updates sent there.
@Suite(.serialized) struct RolloutLedgerTests {
    @Test(arguments: RolloutLiveTests.cases)
    func anOldAppUsersActivityIsPlacedOnTheLegacySideAndItsUpdateGoesThere(_ c: RolloutLiveTests.Case) async throws {
        let affinity = try #require(ActivityAffinityTests.cases.first { $0.dialect == c.dialect })
        let openPush = try RecordingSandbox(), legacy = try RolloutLiveTests.Legacy()
        let proxy = try ProxyHarness(.inProcess, configuration: RolloutLiveTests.configuration(openPush, legacy, rollout: .init(percent: 100)))
        _ = try await proxy.send(path: c.path, body: c.body("carol", "carol_1"))
        let placed = try #require(try await proxy.runtime.audit.activities.record(app: c.app, activityId: "carol_1", now: RFC3339.nowMilliseconds()))
        let (_, digest) = RolloutCohort.bucket(app: c.app, key: "alias:external_id:carol")
        #expect(placed.holder == .legacy && placed.cohortKey == Fingerprint.short(digest: digest))
        #expect(placed.cohortKey?.contains("carol") == false)
        #expect(openPush.all.count == 1 && legacy[c.dialect].all.count == 1)
        // Its update goes to the legacy provider only: OpenPush is not asked first.
        let update = affinity.update("carol_1", "update")
        let reply = try await proxy.send(path: affinity.updatePath("carol_1"), body: update)
        #expect(reply.status == 200 && legacy[c.dialect].all.count == 2 && legacy[c.dialect].all.last?.body == update)
        #expect(openPush.all.count == 1, "the update of an activity placed on the legacy side reached OpenPush")
        // alice is on the new app: her activity is placed on OpenPush and updated there.
        _ = try await proxy.send(path: c.path, body: c.body("alice", "alice_1"))
        let onOpenPush = try #require(try await proxy.runtime.audit.activities.record(app: c.app, activityId: "alice_1", now: RFC3339.nowMilliseconds()))
        #expect(onOpenPush.holder == .openpush && onOpenPush.cohortKey?.hasPrefix("sha256:") == true)
        _ = try await proxy.send(path: affinity.updatePath("alice_1"), body: affinity.update("alice_1", "update"))
        #expect(openPush.all.count == 3 && openPush.all.last?.path.contains("/live_activities/alice_1/") == true && legacy[c.dialect].all.count == 2)
        await proxy.stop()
    }

    @Test func aRolledBackAppsActivitiesOnOpenPushAreStillUpdatedThere() async throws {
        let c = RolloutLiveTests.cases[0]
        let affinity = ActivityAffinityTests.cases[0]
        let failing = Mutex(false)
        let openPush = try RecordingSandbox { request in
            failing.withLock { $0 } && request.path.contains("/activities/activity/") ? .json(400, .object(["errors": .array([.string("event_updates: broken on purpose")])])) : nil
        }
        let legacy = try RolloutLiveTests.Legacy()
        let proxy = try ProxyHarness(.inProcess, configuration: RolloutLiveTests.configuration(openPush, legacy, rollout: .init(percent: 100)))
        _ = try await proxy.send(path: c.path, body: c.body("alice", "kept_1"))
        failing.withLock { $0 = true }
        for i in 0..<RolloutWindow.minimum { _ = try await proxy.send(path: c.path, body: c.body("alice", "fail_\(i)")) }
        #expect(proxy.runtime.rollouts.rollback(of: "os") != nil)
        let before = openPush.all.count, legacyBefore = legacy.os.all.count
        _ = try await proxy.send(path: affinity.updatePath("kept_1"), body: affinity.update("kept_1", "update"))
        #expect(openPush.all.count == before + 1 && openPush.all.last?.path.contains("/live_activities/kept_1/") == true)
        #expect(legacy.os.all.count == legacyBefore, "the update of an activity on OpenPush reached the legacy provider")
        await proxy.stop()
    }
}
