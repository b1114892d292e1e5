@testable import PushBridgeServer
import Testing

/// The rollback window: judged from its minimum, against the readiness shares, over its span.
struct RolloutWindowTests {
    static func fill(_ window: inout RolloutWindow, _ samples: [RolloutWindow.Sample], thresholds: ReadinessThresholds = ReadinessThresholds()) -> [RolloutWindow.Crossing] {
        samples.compactMap { window.add($0, thresholds: thresholds) }
    }

    @Test func nothingIsJudgedBeforeTheMinimumAndAnErrorShareAboveTheThresholdCrossesIt() {
        var window = RolloutWindow()
        let failing = (0..<RolloutWindow.minimum - 1).map { RolloutWindow.Sample(at: Int64($0), failed: true, rateLimited: false) }
        #expect(Self.fill(&window, failing).isEmpty)
        let crossing = window.add(RolloutWindow.Sample(at: 100, failed: false, rateLimited: false), thresholds: ReadinessThresholds())
        #expect(crossing?.threshold == "max_openpush_error_rate")
        #expect(crossing?.evidence == "19 of 20 OpenPush calls in the last 600 s ended without a 2xx (95.0%, above 1.0%)")
    }

    @Test func aShareAnswered429AboveItsThresholdCrossesItEvenWhenTheCallsSucceeded() {
        var window = RolloutWindow(), thresholds = ReadinessThresholds()
        thresholds.maxRateLimitedRate = 0.05
        let ok = (0..<18).map { RolloutWindow.Sample(at: Int64($0), failed: false, rateLimited: false) }
        #expect(Self.fill(&window, ok, thresholds: thresholds).isEmpty)
        #expect(window.add(RolloutWindow.Sample(at: 18, failed: false, rateLimited: true), thresholds: thresholds) == nil, "19 samples are below the minimum")
        // 1 of 20 is exactly 5%: not above the threshold.
        #expect(window.add(RolloutWindow.Sample(at: 19, failed: false, rateLimited: false), thresholds: thresholds) == nil)
        let crossing = window.add(RolloutWindow.Sample(at: 20, failed: false, rateLimited: true), thresholds: thresholds)
        #expect(crossing?.threshold == "max_rate_limited_rate" && crossing?.evidence.hasPrefix("2 of 21 OpenPush calls") == true, "\(String(describing: crossing))")
    }

    @Test func samplesOlderThanTheSpanLeaveTheWindow() {
        var window = RolloutWindow()
        let old = (0..<RolloutWindow.minimum - 1).map { RolloutWindow.Sample(at: Int64($0), failed: true, rateLimited: false) }
        #expect(Self.fill(&window, old).isEmpty)
        let later = RolloutWindow.spanMs + 1_000
        #expect(window.add(RolloutWindow.Sample(at: later, failed: true, rateLimited: false), thresholds: ReadinessThresholds()) == nil)
        #expect(window.samples.count == 1)
    }
}
