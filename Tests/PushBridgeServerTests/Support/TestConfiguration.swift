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
    /// `audit_retention_days`.
    var auditRetentionDays: Int?
    /// `audit_max_mib`.
    var auditMaxMiB: Int?
    /// `audit_min_free_mib`.
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
