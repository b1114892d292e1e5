/// The cut-over verdict per app and route, computed from the audit over a window with
/// ``ReadinessThresholds``: ``AuditReader/readiness(_:settings:)``.
public struct Readiness: Sendable, Equatable {
    /// The rows judged (time window, app, dialect, route).
    public var filter: ReportFilter
    /// The thresholds applied.
    public var thresholds: ReadinessThresholds
    /// One entry per app, in configuration order, then apps only the audit knows, by name.
    public var apps: [AppReadiness]
    /// What the verdicts cannot see.
    public var notes: [String]
    /// Requests in the window (and the filter's app, dialect, route) that PushBridge refused
    /// before admitting them — no or a wrong credential, an app not configured, no app named,
    /// a body over the limit or a malformed head: anyone can send these, so they count toward
    /// no app's verdict or minimum and never change ``allReady``; they are reported apart.
    public var refusedBeforeAdmission: Int

    /// A readiness.
    public init(filter: ReportFilter, thresholds: ReadinessThresholds, apps: [AppReadiness], notes: [String], refusedBeforeAdmission: Int = 0) {
        self.filter = filter
        self.thresholds = thresholds
        self.apps = apps
        self.notes = notes
        self.refusedBeforeAdmission = refusedBeforeAdmission
    }

    /// Whether every app is ready (false when there is no app at all). Requests refused
    /// before admission play no part.
    public var allReady: Bool { !apps.isEmpty && apps.allSatisfy { $0.verdict == .ready } }

    /// The line that reports ``refusedBeforeAdmission`` apart from the verdicts.
    public var refusedBeforeAdmissionLine: String {
        "refused before admission (missing or wrong credentials, an app not configured, …): "
            + ReportFormatting.count(refusedBeforeAdmission, "request") + ", not counted in any verdict"
    }

    /// Said with every verdict: requests on routes PushBridge does not migrate are not judged here.
    public static let unhandledRoutesNote = "unhandled routes: requests on routes PushBridge does not migrate are not judged by these verdicts; "
        + "the report's Unhandled routes section lists those the audit saw (outcome unhandled), and the backend may still call the legacy provider for them"
}

/// The verdict.
public enum ReadinessVerdict: String, Sendable, Equatable, Comparable {
    /// Enough traffic and every threshold met.
    case ready
    /// Enough traffic, no threshold broken yet, but fewer requests or comparisons than required.
    case notEnoughTraffic = "not enough traffic"
    /// At least one threshold broken.
    case notReady = "not ready"

    private var rank: Int {
        switch self {
        case .ready: 0
        case .notEnoughTraffic: 1
        case .notReady: 2
        }
    }

    /// Orders by severity: ready < not enough traffic < not ready.
    public static func < (a: ReadinessVerdict, b: ReadinessVerdict) -> Bool { a.rank < b.rank }
}

/// One app: its verdict is its worst route's.
public struct AppReadiness: Sendable, Equatable {
    /// The app's configured name, or its source app id when the audit has no name for it.
    public var app: String
    /// The verdict.
    public var verdict: ReadinessVerdict
    /// Its routes, by dialect and route; empty when it had no traffic.
    public var routes: [RouteReadiness]
    /// App-level reasons (no traffic at all).
    public var reasons: [String]

    /// An app.
    public init(app: String, verdict: ReadinessVerdict, routes: [RouteReadiness], reasons: [String]) {
        self.app = app
        self.verdict = verdict
        self.routes = routes
        self.reasons = reasons
    }
}

/// One app's route over the window: the figures and the verdict they give.
public struct RouteReadiness: Sendable, Equatable {
    /// The dialect.
    public var dialect: String
    /// The route kind.
    public var route: String
    /// The verdict.
    public var verdict: ReadinessVerdict
    /// Why, one line each: every broken threshold, then what traffic is missing.
    public var reasons: [String]
    /// Requests seen.
    public var requests = 0
    /// Warning-severity dropped or changed fields, widest first.
    public var warnings: [ReadinessFinding] = []
    /// Rejections by rule (PushBridge's own, and OpenPush's rules observe mode found broken), widest first.
    public var rejections: [ReadinessFinding] = []
    /// Shadow comparisons.
    public var shadowed = 0
    /// Comparisons where exactly one side accepted.
    public var disagreements = 0
    /// The disagreements by both sides' status classes, most frequent first.
    public var disagreementCells: [ReadinessDisagreement] = []
    /// Calls to OpenPush (as primary or as the shadow).
    public var openPushCalls = 0
    /// Of those, calls that ended without a 2xx.
    public var openPushErrors = 0
    /// Of those, calls answered 429 at least once.
    public var rateLimited = 0

    /// A route with no figures yet.
    public init(dialect: String, route: String, verdict: ReadinessVerdict = .notEnoughTraffic, reasons: [String] = []) {
        self.dialect = dialect
        self.route = route
        self.verdict = verdict
        self.reasons = reasons
    }

    /// `disagreements / shadowed`, 0 without comparisons.
    public var disagreementShare: Double { shadowed > 0 ? Double(disagreements) / Double(shadowed) : 0 }
    /// `openPushErrors / openPushCalls`, 0 without calls.
    public var openPushErrorRate: Double { openPushCalls > 0 ? Double(openPushErrors) / Double(openPushCalls) : 0 }
    /// `rateLimited / openPushCalls`, 0 without calls.
    public var rateLimitedRate: Double { openPushCalls > 0 ? Double(rateLimited) / Double(openPushCalls) : 0 }
}

/// A field (or rule) found on some of a route's requests.
public struct ReadinessFinding: Sendable, Equatable {
    /// The field path, array indices folded.
    public var field: String
    /// The finding kind (`dropped`, `converted`, `rejected`, …).
    public var kind: String
    /// Requests with it.
    public var requests: Int
    /// Of the route's requests, 0…1.
    public var share: Double
    /// The newest request with it (`pushbridge audit show ID`).
    public var exampleRequestId: String
    /// That request's message for it (for a rejection, the rule).
    public var exampleMessage: String

    /// A finding.
    public init(field: String, kind: String, requests: Int, share: Double, exampleRequestId: String, exampleMessage: String) {
        self.field = field
        self.kind = kind
        self.requests = requests
        self.share = share
        self.exampleRequestId = exampleRequestId
        self.exampleMessage = exampleMessage
    }
}

/// Shadow disagreements with one pair of status classes (`2xx`, `4xx`, `5xx`, `error`).
public struct ReadinessDisagreement: Sendable, Equatable {
    /// The primary side's provider and status class.
    public var primary: String
    /// The shadow side's provider and status class.
    public var shadow: String
    /// Comparisons.
    public var count: Int
    /// The newest one's request id.
    public var exampleRequestId: String

    /// A cell.
    public init(primary: String, shadow: String, count: Int, exampleRequestId: String) {
        self.primary = primary
        self.shadow = shadow
        self.count = count
        self.exampleRequestId = exampleRequestId
    }
}
