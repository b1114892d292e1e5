import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// `pushbridge_instances_stale` and `pushbridge_instance_takeovers_total` from a registry's
/// heartbeat pass on a real PostgreSQL cluster, rendered as `/metrics` renders them (the alert
/// rule `PushBridgeInstanceMissingHeartbeat` pages on them).
@Suite(.serialized) struct InstanceStaleGaugeTests {
    /// The value of the unlabelled series `name` in `metrics`' exposition; nil when missing.
    static func value(_ name: String, _ metrics: Metrics) -> Int? {
        metrics.render().split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    @Test func anInstanceThatStopsBeatingIsStaleUntilTakenOverAndCountedAsATakeover() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let admin = try PostgresConnection(uri)
        let (silent, _) = try InstanceTakeoverTests.registry(uri, "silent")
        try silent.beat()
        // A survivor whose takeover fails (its statement names no table) sees the instance stale
        // pass after pass, and takes nothing over.
        let (failing, _) = try InstanceTakeoverTests.registry(uri, "failing", deadAfter: 300, statements: ["UPDATE no_such_table SET x = $1"])
        let (survivor, _) = try InstanceTakeoverTests.registry(uri, "survivor", deadAfter: 300)
        let metrics = Metrics()
        metrics.sampleFleet { Metrics.fleetReading(overdue: 0, registry: survivor) }
        #expect(try survivor.takeOverDead().isEmpty, "silent beat less than 300 ms ago")
        #expect(Self.value("pushbridge_instances_stale", metrics) == 0)
        try admin.execute("UPDATE instances SET heartbeat_at = heartbeat_at - 10000 WHERE name = 'silent'")
        #expect(throws: (any Error).self) { try failing.takeOverDead() }
        #expect(failing.stale == 1 && failing.takeovers == 0)
        #expect(throws: (any Error).self) { try failing.takeOverDead() }
        #expect(failing.stale == 1, "a failed takeover leaves the instance stale")
        // The survivor takes it over: stale on that pass, one takeover, then nothing stale.
        #expect(try survivor.takeOverDead().map(\.instance) == ["silent"])
        #expect(Self.value("pushbridge_instances_stale", metrics) == 1)
        #expect(Self.value("pushbridge_instance_takeovers_total", metrics) == 1)
        #expect(try survivor.takeOverDead().isEmpty)
        #expect(Self.value("pushbridge_instances_stale", metrics) == 0)
        #expect(Self.value("pushbridge_instance_takeovers_total", metrics) == 1)
    }

    @Test func withoutARegistryBothAreZero() {
        let metrics = Metrics()
        #expect(Self.value("pushbridge_instances_stale", metrics) == nil, "no sampler, no family")
        metrics.sampleFleet { Metrics.fleetReading(overdue: 3, registry: nil) }
        #expect(Self.value("pushbridge_instances_stale", metrics) == 0)
        #expect(Self.value("pushbridge_instance_takeovers_total", metrics) == 0)
        #expect(Self.value("pushbridge_scheduled_starts_overdue", metrics) == 3)
    }
}
