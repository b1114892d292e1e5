import Foundation
import PushBridgeCore
@testable import PushBridgeServer

/// The proxy's configuration file as a test writes it: one typed value for every harness,
/// fleet and `pushbridge serve` a test starts (GRDB's `GRDBTestCase` keeps one configuration
/// the same way). It renders the JSON the real ``ProxyConfiguration`` loader reads
/// (``json``, ``load(environment:)``, ``write(to:)``), so a test still goes through that
/// loader, and it can only spell keys the loader knows. A field left `nil` is left out of the
/// file, so the loader's documented default applies.
///
/// `TestConfiguration(upstream:)` is the usual start: the four apps of ``TestApp/standard``
/// (`os`, `os-mapped`, `pw`, `bk`) in front of an OpenPush at `upstream`, listening on
/// 127.0.0.1:0. Change what the test is about and nothing else:
///
/// ```swift
/// let config = TestConfiguration(upstream: sandbox.baseURL).with {
///     $0.limits.maxBodyBytes = 4096
///     $0.delivery.maxAttempts = 1
///     $0.app("pw") { $0.segmentMap = ["FILTER_NAME_1": "seg_01hq8n4t2v"] }
/// }
/// let proxy = try ProxyHarness(.inProcess, configuration: config)
/// ```
struct TestConfiguration: Sendable, Editable {
    /// `listen`. Default here `127.0.0.1:0` (a free port).
    var listen: String? = "127.0.0.1:0"
    /// `log_format`.
    var logFormat: ProxyConfiguration.LogFormat?
    /// `audit_db`: an SQLite path or a `postgresql://` URI. A harness fills it with a file in
    /// its own folder when it is nil.
    var auditDatabase: String?
    /// `delivery.scheduler_db`.
    var schedulerDatabase: String?
    /// `instance_name`.
    var instanceName: String?
    /// `openpush.base_url`; nil leaves `openpush` out (the embedded sandbox is then the upstream).
    var openPush: String?
    /// `openpush.ca_file`.
    var openPushCAFile: String?
    /// `sandbox`; nil leaves it out (not embedded).
    var sandbox: Sandbox?
    /// `admin`; nil leaves it out (no admin listener).
    var admin: Admin?
    /// `apps`, in order.
    var apps: [TestApp]
    /// `legacy`: each dialect's legacy provider base URL, or `"double"` (``legacyDouble``).
    var legacy: [DialectName: String] = [:]
    /// `legacy_doubles`.
    var legacyDoubles: LegacyDoubles?
    /// `limits`.
    var limits = Limits()
    /// `delivery` (its `scheduler_db` is ``schedulerDatabase``).
    var delivery = Delivery()
    /// `shadow_queue`.
    var shadowQueue = ShadowQueue()
    /// `tls`: HTTPS on ``listen``.
    var tls: TLS?
    /// `audit_retention_days`, `audit_max_mib`, `audit_min_free_mib`.
    var auditRetentionDays: Int?
    var auditMaxMiB: Int?
    var auditMinFreeMiB: Int?
    /// `readiness`: the members of the object, by their configuration key (see
    /// ``ReadinessThresholds``); nil leaves it out.
    var readiness: Readiness?
    /// `instances`.
    var instances = Instances()
    /// Members given as JSON text by the older string-fragment harness initialisers; see
    /// ``Fragments``. New tests set the typed fields.
    var fragments = Fragments()

    /// The value of a `legacy.<dialect>` that starts the embedded legacy double.
    static let legacyDouble = ProxyConfiguration.legacyDoubleMarker

    /// The standard apps in front of the OpenPush at `upstream` (a base URL).
    init(upstream: String?, apps: [TestApp] = TestApp.standard) {
        openPush = upstream
        self.apps = apps
    }

    /// Changes the app named `name` (there must be one).
    mutating func app(_ name: String, _ edit: (inout TestApp) -> Void) {
        guard let i = apps.firstIndex(where: { $0.name == name }) else { preconditionFailure("no app named \(name) in the test configuration") }
        edit(&apps[i])
    }

    /// Sets every app's `mode`.
    mutating func setMode(_ mode: MigrationMode) {
        for i in apps.indices { apps[i].mode = mode }
    }

    /// `limits`; nil keys keep the loader's defaults.
    struct Limits: Sendable {
        var maxBodyBytes: Int?
        var maxConnections: Int?
        var perIPConnections: Int?
        var headerMemoryBytes: Int?
        var maxHeadBytes: Int?
        var maxRequestTargetBytes: Int?
        var idleTimeoutSeconds: Int?
        var requestTimeoutSeconds: Int?
        var upstreamConnectTimeoutMs: Int?
        var upstreamTimeoutMs: Int?
        var maxActivities: Int?
    }

    /// `delivery` (pacing, retries, the repeat window).
    struct Delivery: Sendable {
        var sendsPerWindow: Int?
        var windowMs: Int?
        var marginMs: Int?
        var queueLimit: Int?
        var maxWaitMs: Int?
        var maxAttempts: Int?
        var backoffBaseMs: Int?
        var backoffMaxMs: Int?
        var repeatWindowMs: Int?
    }

    /// `shadow_queue`.
    struct ShadowQueue: Sendable {
        var limit: Int?
        var workers: Int?
        var timeoutMs: Int?
    }

    /// `instances` (heartbeats of instances sharing a PostgreSQL audit).
    struct Instances: Sendable {
        var heartbeatMs: Int?
        var deadAfterMs: Int?
    }

    /// `sandbox`: the embedded OpenPush double.
    struct Sandbox: Sendable {
        var embedded = true
        /// `seed`: a seed file path.
        var seed: String?
        var rateWindowSeconds: Int?
        var listen: String? = "127.0.0.1:0"
    }

    /// `admin`: the admin listener, its bearer token read from `tokenEnv`.
    struct Admin: Sendable {
        var tokenEnv: String
        var listen: String? = "127.0.0.1:0"
        var tls: TLS?
    }

    /// `legacy_doubles`.
    struct LegacyDoubles: Sendable {
        var listen: String?
        var keep: Int?
    }

    /// A `tls` object: a PEM chain and its key.
    struct TLS: Sendable {
        var certificateChain: String
        var privateKey: String
    }

    /// `readiness`: thresholds by name; nil keeps the default (``ReadinessThresholds``).
    struct Readiness: Sendable, Editable {
        var minRequests: Int?
        var minShadowed: Int?
        var maxWarningShare: Double?
        var maxRejectionShare: Double?
        var maxDisagreementShare: Double?
        var maxOpenPushErrorRate: Double?
        var maxRateLimitedRate: Double?
        var minReach: Double?
        var openPushRequestsPerMinute: Int?
        /// `accepted_losses`: app name or source app id → field paths.
        var acceptedLosses: [String: [String]]?
    }

    /// JSON text that older call sites hand to a harness (`limits: "{…}"`, `topExtra: ", …"`,
    /// `pushwooshExtra`, `apps: "[…]"`), merged over the typed fields when the file is
    /// rendered. The loader still reads the result, so a wrong key is still refused.
    struct Fragments: Sendable {
        /// Top-level members; a key here replaces the typed one.
        var top = JSONObject()
        /// Members of `limits`.
        var limits = JSONObject()
        /// More members per app name.
        var apps: [String: JSONObject] = [:]
        /// An `apps` array that replaces ``TestConfiguration/apps``.
        var appsArray: JSONValue?
    }
}

/// A value a test builds in one expression by changing a copy: `base.with { $0.x = 1 }`.
protocol Editable {}

extension Editable {
    /// A copy changed by `edit`.
    func with(_ edit: (inout Self) throws -> Void) rethrows -> Self {
        var copy = self
        try edit(&copy)
        return copy
    }
}
