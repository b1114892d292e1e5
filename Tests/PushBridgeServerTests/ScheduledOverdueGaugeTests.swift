import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// `pushbridge_scheduled_starts_overdue` on a running proxy's `/metrics`: the scheduler's pass
/// counts the starts still to send a minute after their time (the alert rule
/// `ScheduledStartsOverdue` pages on it), and the count goes back to 0 once they are sent.
@Suite(.serialized) struct ScheduledOverdueGaugeTests {
    /// The gauge's value in a `/metrics` body; nil when the family is missing.
    static func overdue(_ proxy: ProxyHarness) async throws -> Int? {
        let body = String(decoding: try await proxy.get("/metrics").body, as: UTF8.self)
        return body.split(separator: "\n").first { $0.hasPrefix("pushbridge_scheduled_starts_overdue ") }
            .flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    /// Whether `/metrics` comes to show `value` overdue (polled, within 10 s).
    static func reads(_ value: Int, _ proxy: ProxyHarness) async throws -> Bool {
        try await firstValue { try await overdue(proxy) == value ? true : nil } ?? false
    }

    @Test func aStartStuckPastItsTimeShowsAsOverdueUntilItIsSent() async throws {
        let upstream = try RecordingSandbox()
        let now = Int64(Date().timeIntervalSince1970)
        let clock = ManualDeliveryClock(startMilliseconds: now * 1000)
        let proxy = try ProxyHarness(.live, upstream: upstream.baseURL, clock: clock)
        #expect(await clock.settled(), "the scheduler did not go to sleep after its first pass")
        #expect(try await Self.overdue(proxy) == 0)
        let first = String(decoding: try await proxy.get("/metrics").body, as: UTF8.self)
        #expect(first.contains("\npushbridge_instances_stale 0\n") && first.contains("\npushbridge_instance_takeovers_total 0\n"),
                "SQLite (no other instance) shows the heartbeat gauges at 0")
        // Held back: a start two minutes late that a send holds (`sending`, never finished).
        let store = proxy.runtime.scheduler.store
        try await store.insert([ScheduledStartStoreBackendTests.start(1, sendAt: now - 120)], now: now * 1000)
        #expect(try await store.claim("sch_1", now: now * 1000))
        // The scheduler's next pass (the clock reaches its wake-up time) counts it.
        clock.advance(byMilliseconds: 60_000)
        #expect(try await Self.reads(1, proxy), "the stuck start never showed as overdue on /metrics")
        #expect(await clock.settled(), "the scheduler did not go to sleep after its pass")
        // Once its send is recorded, the next pass counts nothing.
        try await store.finish("sch_1", sent: true, notificationId: "n1", status: 200, error: nil, now: clock.nowMilliseconds())
        clock.advance(byMilliseconds: 60_000)
        #expect(try await Self.reads(0, proxy), "the gauge stayed up after the start was sent")
        await proxy.stop()
    }
}
