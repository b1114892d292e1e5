/// The sliding window of one app's OpenPush outcomes during a rollout, judged against the
/// readiness thresholds' error and 429 shares. Population gaps (`not_on_openpush`) are not
/// put in: a phone not on OpenPush yet is not OpenPush failing.
///
/// The window holds the last ``capacity`` outcomes of the last ``spanMs`` milliseconds and is
/// judged once it holds ``minimum``; fewer say nothing (one error in three calls is no rate).
struct RolloutWindow: Sendable {
    /// One OpenPush call's outcome.
    struct Sample: Sendable, Equatable {
        /// When it ended, Unix ms.
        var at: Int64
        /// It ended without a 2xx.
        var failed: Bool
        /// It was answered 429 at least once.
        var rateLimited: Bool
    }

    /// Why a window crossed a threshold: the threshold's key and the evidence, for the log line.
    struct Crossing: Sendable, Equatable {
        /// `max_openpush_error_rate` or `max_rate_limited_rate`.
        var threshold: String
        /// What the window held, e.g. `12 of 40 OpenPush calls in the last 600 s ended without a 2xx (30.0%, above 1.0%)`.
        var evidence: String
    }

    /// Outcomes kept at most.
    static let capacity = 200
    /// Outcomes needed before the window is judged.
    static let minimum = 20
    /// How far back the window reaches, ms (10 minutes).
    static let spanMs: Int64 = 600_000

    private(set) var samples: [Sample] = []

    /// Adds a sample, drops what fell out, and judges the window: the first threshold crossed, or nil.
    mutating func add(_ sample: Sample, thresholds: ReadinessThresholds) -> Crossing? {
        samples.append(sample)
        samples.removeAll { $0.at < sample.at - Self.spanMs }
        if samples.count > Self.capacity { samples.removeFirst(samples.count - Self.capacity) }
        guard samples.count >= Self.minimum else { return nil }
        let failed = samples.filter(\.failed).count, limited = samples.filter(\.rateLimited).count
        func share(_ n: Int) -> Double { Double(n) / Double(samples.count) }
        func percent(_ x: Double) -> String { let tenths = Int((x * 1000).rounded()); return "\(tenths / 10).\(tenths % 10)%" }
        let span = "in the last \(Self.spanMs / 1000) s"
        if share(failed) > thresholds.maxOpenPushErrorRate {
            return Crossing(threshold: "max_openpush_error_rate",
                            evidence: "\(failed) of \(samples.count) OpenPush calls \(span) ended without a 2xx (\(percent(share(failed))), above \(percent(thresholds.maxOpenPushErrorRate)))")
        }
        if share(limited) > thresholds.maxRateLimitedRate {
            return Crossing(threshold: "max_rate_limited_rate",
                            evidence: "\(limited) of \(samples.count) OpenPush calls \(span) were answered 429 (\(percent(share(limited))), above \(percent(thresholds.maxRateLimitedRate)))")
        }
        return nil
    }
}
