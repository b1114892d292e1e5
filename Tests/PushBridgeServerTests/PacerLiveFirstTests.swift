@testable import PushBridgeServer
import Testing

/// The one rule both pacers apply to a shadow send (``PacerWindow/reserveSpare(count:now:settings:)``):
/// live first. A shadow takes only slots free now, never while a live send waits, and always
/// leaves the live reserve (at least as many slots as live sends used in the window) free.
struct PacerLiveFirstTests {
    /// 60 per 60 s, no margin, a reserve of 20.
    static var settings: DeliverySettings {
        var s = DeliverySettings()
        s.marginMs = 0
        s.liveReserve = 20
        return s
    }

    @Test func aShadowTakesTheSlotsLeftAboveTheLiveReserveAndNoMore() {
        var window = PacerWindow()
        #expect(window.reserveSpare(count: 40, now: 1_000, settings: Self.settings) == .granted(Array(repeating: 1_000, count: 40)))
        guard case .refused(let seconds) = window.reserveSpare(count: 1, now: 1_001, settings: Self.settings) else {
            Issue.record("a shadow took one of the 20 slots kept for live sends")
            return
        }
        #expect(seconds == 60, "the first shadow slot leaves the window at 61 s")
        // Live sends still get all 20 at once, and the shadows count in the window: the 21st waits.
        guard case .granted(let live) = window.reserve(count: 21, now: 1_002, settings: Self.settings) else {
            Issue.record("live sends were refused")
            return
        }
        #expect(live.prefix(20).allSatisfy { $0 == 1_002 } && live[20] == 61_000)
    }

    @Test func theHeadroomFollowsTheLiveTrafficOfTheWindow() {
        var window = PacerWindow()
        #expect(window.reserve(count: 25, now: 0, settings: Self.settings) == .granted(Array(repeating: 0, count: 25)))
        // 25 live in the window: the shadow leaves 25 free, so at most 60 - 25 - 25 = 10 go.
        #expect(window.reserveSpare(count: 11, now: 10, settings: Self.settings) != .granted(Array(repeating: 10, count: 11)))
        #expect(window.reserveSpare(count: 10, now: 10, settings: Self.settings) == .granted(Array(repeating: 10, count: 10)))
        #expect(window.spare.count == 10 && window.slots.count == 35)
        // Once the live sends have left the window, the reserve is the configured 20 again.
        #expect(window.reserveSpare(count: 20, now: 60_001, settings: Self.settings) == .granted(Array(repeating: 60_001, count: 20)))
    }

    @Test func aShadowNeverGoesWhileALiveSendWaitsOrTheAppIsBlocked() {
        var settings = Self.settings
        settings.sendsPerWindow = 2
        settings.liveReserve = 0
        var window = PacerWindow()
        guard case .granted(let live) = window.reserve(count: 3, now: 0, settings: settings) else {
            Issue.record("live sends were refused")
            return
        }
        #expect(live == [0, 0, 60_000], "the third live send waits for the window")
        #expect(window.reserveSpare(count: 1, now: 100, settings: settings) == .refused(retryAfterSeconds: 60))
        var blocked = PacerWindow()
        blocked.blockUntil(5_000)
        #expect(blocked.reserveSpare(count: 1, now: 0, settings: settings) == .refused(retryAfterSeconds: 5))
        #expect(blocked.slots.count == 0, "a refusal takes no slot")
    }

    @Test func theDefaultReserveIsAThirdOfTheWindowAndNeverMoreThanIt() {
        var s = DeliverySettings()
        #expect(s.effectiveLiveReserve == 20)
        s.sendsPerWindow = 5
        #expect(s.effectiveLiveReserve == 1)
        s.liveReserve = 9
        #expect(s.effectiveLiveReserve == 5)
    }
}
