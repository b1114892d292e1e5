import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// A Pushwoosh start of several notifications is one reservation and several sends: when
/// OpenPush answers the first with 429, the rest wait out its `Retry-After` (the pacer's
/// block), even though their slots were granted before the block and are already due. The
/// first send of a reservation goes without asking the pacer again (nothing can have blocked
/// the app since the reservation read its window), so this is what keeps the second honest.
@Suite(.serialized)
struct FanOutDrainLiveTests {
    @Test func aFanOutsSecondSendWaitsOutTheRetryAfterOfItsFirstsTooManyRequests() async throws {
        let upstream = try FaultyUpstream(.tooMany)
        defer { upstream.stop() }
        let proxy = try ProxyHarness(configuration: FaultInjectionTests.configuration(upstream: upstream.baseURL))
        let note = { (id: String, status: String) in
            #"{"content":"c","title":"t","live_activity":{"event":"start","title":"o","content-state":{"status":"\#(status)"},"attributes-type":"FoodDeliveryAttributes","attributes":{}},"live_activity_id":"\#(id)","filter":"FILTER_NAME_1"}"#
        }
        let body = #"{"request":{"application":"XXXXX-XXXXX","auth":"SECRET_API_TOKEN","notifications":[\#(note("LA_1", FaultyUpstream.marker)),\#(note("LA_2", "normal"))]}}"#
        let answer = try await proxy.send(path: "/json/1.3/startLiveActivity", body: Array(body.utf8), session: makeBurstSession())
        #expect(upstream.received.count == 2, "OpenPush saw \(upstream.received.count) sends of 2")
        // The proxy's own clock, from its audit: when the 429 came back, when the second left.
        let id = try #require(answer.headers["x-pushbridge-request-id"], "no request id")
        let row = try #require(try await FaultInjectionTests.completedRow(proxy, id), "no completed audit row")
        let attempts = FaultInjectionTests.attempts(row)
        try #require(attempts.count == 2, "attempts \(row.attempts ?? "-")")
        #expect(attempts[0]["status"]?.numberValue?.int64Value == 429, "attempts \(row.attempts ?? "-")")
        let answeredAt = Double(attempts[0]["at"]?.numberValue?.int64Value ?? 0) + (attempts[0]["latency_ms"]?.numberValue?.doubleValue ?? 0)
        let secondAt = Double(attempts[1]["at"]?.numberValue?.int64Value ?? 0)
        // Retry-After: 1 s from the moment the 429 was read; a few ms of rounding, none of skipping it.
        #expect(secondAt - answeredAt >= 990, "the second send went \(secondAt - answeredAt) ms after the 429, inside its Retry-After")
        await proxy.stop()
    }
}
