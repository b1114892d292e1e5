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
    /// The audit judged (its file path or redacted PostgreSQL URI): the `--db` of every
    /// command the next steps print; nil when not known.
    public var database: String?
    /// What to do next, drawn from every app's reasons, each naming its app: the end of the
    /// readiness section in every format.
    public var nextSteps: [String] {
        apps.flatMap { app in app.nextSteps + app.routes.flatMap(\.nextSteps) + app.legacy.nextSteps }
    }

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
    /// App-level reasons: no traffic at all, a busiest minute above OpenPush's rate limit.
    public var reasons: [String]
    /// The busiest minute of the app's sending requests in the window; nil without any.
    public var busiestMinute: BusiestMinute?
    /// The second verdict: whether the legacy provider can be switched off for this app.
    public var legacy = LegacySwitchOff(verdict: .notYet, reasons: [], nextSteps: [])
    /// Activities in flight on each side (from the activity ledger); nil when not known.
    public var inFlight: [ActivityCount]?
    /// What to do about the app-level reasons, each naming the app.
    public var nextSteps: [String] = []
    /// The window its verdicts judged, and why that one.
    public var window = ReadinessWindow(since: nil, until: nil, basis: .wholeAudit)
    /// Its current stage in the stage history; nil before any change is recorded for it.
    public var stage: StageRun?

    /// An app.
    public init(app: String, verdict: ReadinessVerdict, routes: [RouteReadiness], reasons: [String]) {
        self.app = app
        self.verdict = verdict
        self.routes = routes
        self.reasons = reasons
    }

    /// Activities in flight that the legacy provider holds (alone or with OpenPush); nil when not known.
    public var legacyInFlight: Int? { inFlight.map { $0.filter { $0.holder.includesLegacy }.reduce(0) { $0 + $1.count } } }
    /// Activities in flight that OpenPush holds (alone or with the legacy provider); nil when not known.
    public var openPushInFlight: Int? { inFlight.map { $0.filter { $0.holder.includesOpenPush }.reduce(0) { $0 + $1.count } } }
}

/// The busiest minute (on the clock, UTC) of the OpenPush app an app sends to, counted as
/// OpenPush counts its 60 a minute: in sends (a Pushwoosh request of 5 notifications is 5),
/// per OpenPush app, every source app that shares it together.
public struct BusiestMinute: Sendable, Equatable {
    /// The minute's start, Unix milliseconds.
    public var start: Int64
    /// OpenPush sends of the requests received in it (admitted, not rejected), every source
    /// app on ``openPushApp`` together.
    public var requests: Int
    /// The OpenPush app; nil when the rows do not say (rows from before `target_app`).
    public var openPushApp: String?
    /// The apps whose requests made the minute's sends, sorted (one app alone: just it).
    public var apps: [String]

    /// A minute.
    public init(start: Int64, requests: Int, openPushApp: String? = nil, apps: [String] = []) {
        self.start = start
        self.requests = requests
        self.openPushApp = openPushApp
        self.apps = apps
    }
}

/// Whether an app's legacy provider can be switched off: OpenPush reaches (nearly) every
/// audience and no activity the legacy provider holds can still be updated.
public struct LegacySwitchOff: Sendable, Equatable {
    /// The verdict.
    public enum Verdict: String, Sendable, Equatable {
        /// Reach at or above ``ReadinessThresholds/minReach`` on every route and nothing in flight on the legacy side.
        case canBeSwitchedOff = "legacy can be switched off"
        /// Not yet: the reasons say why.
        case notYet = "keep legacy"
    }

    /// The verdict.
    public var verdict: Verdict
    /// Why not yet, one line each; empty when it can be switched off.
    public var reasons: [String]
    /// What to do, each naming the app.
    public var nextSteps: [String]

    /// A verdict.
    public init(verdict: Verdict, reasons: [String], nextSteps: [String]) {
        self.verdict = verdict
        self.reasons = reasons
        self.nextSteps = nextSteps
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
    /// The newest of those errors' request id (`pushbridge audit show`); nil without one.
    public var openPushErrorExample: String?
    /// Of those, calls answered 429 at least once.
    public var rateLimited = 0
    /// Calls to OpenPush that found no audience there, population gaps (rows
    /// `not_on_openpush`, shadow comparisons with OpenPush's documented 400 "no push-to-start
    /// token" or 404 "no live activity open"): not counted in ``openPushCalls`` or its errors.
    public var openPushGaps = 0
    /// Requests the legacy provider did not know (rows `not_on_legacy`): not errors either.
    public var legacyGaps = 0
    /// Comparisons where the one refusal was OpenPush's population gap: expected, counted
    /// here and not in ``disagreements``.
    public var expectedDisagreements = 0
    /// Warning fields the app's team accepted to lose (`readiness.accepted_losses`), with
    /// their share: shown, not blocking.
    public var acceptedLosses: [ReadinessFinding] = []
    /// What to do about this route's reasons, each naming the app.
    public var nextSteps: [String] = []

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
    /// Reach: the share of calls to OpenPush (population gaps included) that OpenPush
    /// delivered, `(openPushCalls - openPushErrors) / (openPushCalls + openPushGaps)`: a
    /// refusal (a 403, a 5xx, a timeout) reached nobody; nil when no call went to OpenPush
    /// (observe mode, a rollout at 0%).
    public var reach: Double? {
        let tried = openPushCalls + openPushGaps
        return tried > 0 ? Double(openPushCalls - openPushErrors) / Double(tried) : nil
    }
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
