/// A diff report over the audit: what a migration drops, changes, refuses and disagrees on.
/// Built by ``AuditReader/report(_:)`` from SQL aggregates; rendered by ``ReportRenderer``.
public struct Report: Sendable, Equatable {
    /// The filter it was built with.
    public var filter: ReportFilter
    /// Requests matching the filter.
    public var totalRequests: Int
    /// Requests per dialect and route (the denominators of every share).
    public var routes: [RouteTotal]
    /// Fields OpenPush ignores: sorted by share of their route's requests, then count.
    public var dropped: [FindingGroup]
    /// Renamed, converted, rescaled, defaulted, synthesized, escaped and coerced fields.
    public var changes: [FindingGroup]
    /// Rejections, by rule (field and message).
    public var rejections: [FindingGroup]
    /// Caveats (fan-out cap, per-token results, …).
    public var caveats: [FindingGroup]
    /// Dropped findings per time bucket, for the chart.
    public var droppedOverTime: [TimeBucket]
    /// Shadow comparisons.
    public var shadow: ShadowSummary
    /// Upstream outcomes.
    public var upstream: UpstreamSummary
    /// Requests on routes PushBridge does not translate (outcome `unhandled`), per dialect of
    /// their path prefix and `METHOD /path`, most frequent first; not in ``routes``.
    public var unhandled: [RouteTotal]
    /// The cut-over verdicts per app and route over the same rows.
    public var readiness: Readiness

    /// A report.
    public init(filter: ReportFilter, totalRequests: Int, routes: [RouteTotal], dropped: [FindingGroup], changes: [FindingGroup],
                rejections: [FindingGroup], caveats: [FindingGroup], droppedOverTime: [TimeBucket], shadow: ShadowSummary,
                upstream: UpstreamSummary, unhandled: [RouteTotal] = [], readiness: Readiness? = nil) {
        self.filter = filter
        self.totalRequests = totalRequests
        self.routes = routes
        self.dropped = dropped
        self.changes = changes
        self.rejections = rejections
        self.caveats = caveats
        self.droppedOverTime = droppedOverTime
        self.shadow = shadow
        self.upstream = upstream
        self.unhandled = unhandled
        self.readiness = readiness ?? Readiness(filter: filter, thresholds: ReadinessThresholds(), apps: [], notes: [Readiness.unhandledRoutesNote])
    }
}

/// Requests received on one dialect route.
public struct RouteTotal: Sendable, Equatable {
    /// `onesignal`, `pushwoosh`, `buzzkit`; empty for requests no dialect had.
    public var dialect: String
    /// The route kind (`start`, `update`, …).
    public var route: String
    /// Requests.
    public var requests: Int

    /// A route total.
    public init(dialect: String, route: String, requests: Int) {
        self.dialect = dialect
        self.route = route
        self.requests = requests
    }
}

/// One field path on one route with one finding kind, aggregated over the audit. Array
/// indices are folded: `notifications[0].x` and `notifications[1].x` are `notifications[].x`.
public struct FindingGroup: Sendable, Equatable {
    /// The dialect.
    public var dialect: String
    /// The route kind.
    public var route: String
    /// The field path with array indices folded.
    public var field: String
    /// The finding kind.
    public var kind: String
    /// Requests with at least one such finding.
    public var requests: Int
    /// `requests` over the route's requests, 0…1.
    public var share: Double
    /// First seen, Unix ms.
    public var firstSeen: Int64
    /// Last seen, Unix ms.
    public var lastSeen: Int64
    /// The source apps sending it, sorted.
    public var apps: [String]
    /// The newest audit request id with it (`pushbridge audit show ID`).
    public var exampleRequestId: String
    /// That request's message for it (the reason, the rule).
    public var exampleMessage: String

    /// A group.
    public init(dialect: String, route: String, field: String, kind: String, requests: Int, share: Double, firstSeen: Int64,
                lastSeen: Int64, apps: [String], exampleRequestId: String, exampleMessage: String) {
        self.dialect = dialect
        self.route = route
        self.field = field
        self.kind = kind
        self.requests = requests
        self.share = share
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.apps = apps
        self.exampleRequestId = exampleRequestId
        self.exampleMessage = exampleMessage
    }
}

/// Requests received and requests with a dropped field in one time bucket.
public struct TimeBucket: Sendable, Equatable {
    /// Bucket start, Unix ms.
    public var start: Int64
    /// Requests received in it.
    public var requests: Int
    /// Dropped-field findings in it.
    public var droppedFindings: Int

    /// A bucket.
    public init(start: Int64, requests: Int, droppedFindings: Int) {
        self.start = start
        self.requests = requests
        self.droppedFindings = droppedFindings
    }
}
