/// The shadow comparisons: verdicts, disagreements, latency and errors per side.
public struct ShadowSummary: Sendable, Equatable {
    /// Comparisons matching the filter; 0 renders as "no shadow traffic".
    public var comparisons: Int
    /// Count per verdict, most frequent first.
    public var verdicts: [Count]
    /// Primary status class × shadow status class (`2xx`, `4xx`, `5xx`, `error`): count.
    public var matrix: [MatrixCell]
    /// Comparisons where one side accepted (2xx) and the other did not, for a reason other
    /// than a population gap.
    public var disagreements: Int
    /// Comparisons where the one refusal was OpenPush's population gap (its 400 "no
    /// push-to-start token" or 404 "no live activity open": the phone is not on OpenPush
    /// yet): expected, counted here and not in ``disagreements``.
    public var expectedDisagreements = 0
    /// Up to 10 of them, newest first.
    public var disagreementExamples: [ShadowExample]
    /// Latency of the primary provider.
    public var primaryLatency: Percentiles
    /// Latency of the shadow provider.
    public var shadowLatency: Percentiles
    /// Share of comparisons whose primary call errored (no status), 0…1.
    public var primaryErrorRate: Double
    /// Share of comparisons whose shadow call errored (no status), 0…1.
    public var shadowErrorRate: Double

    /// A summary.
    public init(comparisons: Int = 0, verdicts: [Count] = [], matrix: [MatrixCell] = [], disagreements: Int = 0,
                disagreementExamples: [ShadowExample] = [], primaryLatency: Percentiles = Percentiles(), shadowLatency: Percentiles = Percentiles(),
                primaryErrorRate: Double = 0, shadowErrorRate: Double = 0) {
        self.comparisons = comparisons
        self.verdicts = verdicts
        self.matrix = matrix
        self.disagreements = disagreements
        self.disagreementExamples = disagreementExamples
        self.primaryLatency = primaryLatency
        self.shadowLatency = shadowLatency
        self.primaryErrorRate = primaryErrorRate
        self.shadowErrorRate = shadowErrorRate
    }
}

/// A label and how many times it occurred.
public struct Count: Sendable, Equatable {
    /// The label.
    public var name: String
    /// The count.
    public var count: Int
    /// A count.
    public init(_ name: String, _ count: Int) {
        self.name = name
        self.count = count
    }
}

/// One cell of the shadow verdict matrix.
public struct MatrixCell: Sendable, Equatable {
    /// The primary side's status class.
    public var primary: String
    /// The shadow side's status class.
    public var shadow: String
    /// Comparisons.
    public var count: Int
    /// A cell.
    public init(primary: String, shadow: String, count: Int) {
        self.primary = primary
        self.shadow = shadow
        self.count = count
    }
}

/// One shadow disagreement.
public struct ShadowExample: Sendable, Equatable {
    /// The audit request id.
    public var requestId: String
    /// The verdict recorded.
    public var verdict: String
    /// The primary status, nil on error.
    public var primaryStatus: Int?
    /// The shadow status, nil on error.
    public var shadowStatus: Int?
    /// What differed, as recorded.
    public var differences: String
    /// An example.
    public init(requestId: String, verdict: String, primaryStatus: Int?, shadowStatus: Int?, differences: String) {
        self.requestId = requestId
        self.verdict = verdict
        self.primaryStatus = primaryStatus
        self.shadowStatus = shadowStatus
        self.differences = differences
    }
}

/// p50/p95/p99 in milliseconds (nearest rank); nil when there are no samples.
public struct Percentiles: Sendable, Equatable {
    /// Median.
    public var p50: Double?
    /// 95th percentile.
    public var p95: Double?
    /// 99th percentile.
    public var p99: Double?
    /// Percentiles.
    public init(p50: Double? = nil, p95: Double? = nil, p99: Double? = nil) {
        self.p50 = p50
        self.p95 = p95
        self.p99 = p99
    }
}

/// What happened upstream: outcomes, statuses, retries, rate-limit waits, scheduled sends.
public struct UpstreamSummary: Sendable, Equatable {
    /// Requests per outcome (`forwarded`, `rejected`, `translated`, …), most frequent first.
    public var outcomes: [Count]
    /// Requests per OpenPush status (`201`, `429`, …; `none` when none came back).
    public var statuses: [Count]
    /// Requests that needed more than one attempt.
    public var retriedRequests: Int
    /// Attempts beyond the first, summed.
    public var retries: Int
    /// Attempts answered 429.
    public var rateLimitedAttempts: Int
    /// Time between a 429 attempt's end and the next attempt's start, summed, ms.
    public var rateLimitWaitMs: Double
    /// Scheduled sends per state (`pending`, `sent`, …).
    public var scheduledSends: [Count]

    /// A summary.
    public init(outcomes: [Count] = [], statuses: [Count] = [], retriedRequests: Int = 0, retries: Int = 0, rateLimitedAttempts: Int = 0,
                rateLimitWaitMs: Double = 0, scheduledSends: [Count] = []) {
        self.outcomes = outcomes
        self.statuses = statuses
        self.retriedRequests = retriedRequests
        self.retries = retries
        self.rateLimitedAttempts = rateLimitedAttempts
        self.rateLimitWaitMs = rateLimitWaitMs
        self.scheduledSends = scheduledSends
    }
}
