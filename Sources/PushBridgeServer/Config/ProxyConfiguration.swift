import Foundation
import PushBridgeCore

/// Everything `pushbridge serve` needs, validated once at start-up. Every field has a
/// documented default except the apps. Load it with `ProxyConfiguration.load(fileAt:environment:)`.
public struct ProxyConfiguration: Sendable {
    /// Where the proxy listens. Default `127.0.0.1:8080`.
    public var listen: ListenAddress
    /// How log lines are written on stderr. Default `.logfmt`.
    public var logFormat: LogFormat
    /// The audit: an SQLite file path, or a `postgresql://` URI (libpq syntax, no password).
    /// Default `pushbridge-audit.sqlite`.
    public var auditDatabasePath: String
    /// This process's name among the instances sharing one database, written on every row it
    /// writes (`instance_name`). Default the host name and process id, `host-pid`.
    public var instanceName = ProxyConfiguration.defaultInstanceName
    /// Server and upstream limits.
    public var limits: Limits
    /// The real OpenPush upstream; `nil` only when the embedded sandbox is the upstream.
    public var openPush: OpenPushUpstream?
    /// The in-process OpenPush sandbox. Default: not embedded.
    public var sandbox: Sandbox
    /// The admin endpoint; `nil` (the default) disables it.
    public var admin: Admin?
    /// The apps the proxy serves (at least one).
    public var apps: [AppConfiguration]
    /// The legacy providers' base URLs (observe and shadow modes). Default none.
    public var legacy = LegacyEndpoints()
    /// `allow_legacy_removal`: a reload (and `check-config`) takes a file without a
    /// `legacy.<dialect>` that activities in flight are still held by (they can then no longer
    /// be updated or ended). Default false: such a file is refused (``LegacyRemovalGuard``).
    public var allowLegacyRemoval = false
    /// The embedded legacy doubles, started when a `legacy.<dialect>` is `"double"`.
    public var legacyDoubles = LegacyDoubles()
    /// Pacing and retries of sends to OpenPush. Defaults: 60 per 60 s, 3 attempts.
    public var delivery = DeliverySettings()
    /// The scheduler database; nil derives it from the audit path (see `schedulerDatabasePath`).
    public var schedulerDatabase: String?
    /// The shadow queue. Defaults: 256 queued, 4 workers, 5 s deadline.
    public var shadowQueue = ShadowQueueSettings()
    /// HTTPS on ``listen`` (`tls`); `nil` (the default) serves plain HTTP.
    public var tls: TLSFiles?
    /// Retention and disk guards of the audit. Defaults: 30 days, warn past 10 GiB or under
    /// 1 GiB free.
    public var auditLimits = AuditLimits()
    /// When `readiness` calls an app ready to cut over (see ``ReadinessThresholds``).
    public var readiness = ReadinessThresholds()
    /// Heartbeats of instances sharing a PostgreSQL database. Defaults: 5 s, dead after 30 s.
    public var instances = InstanceSettings()

    /// The audit file when neither a configuration nor `--db` names one.
    public static let defaultAuditDatabasePath = "pushbridge-audit.sqlite"

    /// A configuration; every argument but `apps` has the default documented on its property.
    public init(listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 8080), logFormat: LogFormat = .logfmt, auditDatabasePath: String = defaultAuditDatabasePath, limits: Limits = Limits(), openPush: OpenPushUpstream? = nil, sandbox: Sandbox = Sandbox(), admin: Admin? = nil, apps: [AppConfiguration]) {
        self.listen = listen
        self.logFormat = logFormat
        self.auditDatabasePath = auditDatabasePath
        self.limits = limits
        self.openPush = openPush
        self.sandbox = sandbox
        self.admin = admin
        self.apps = apps
    }

    /// The host name and process id of this process (``InstanceSettings/defaultName``).
    public static var defaultInstanceName: String { InstanceSettings.defaultName }

    /// Log line format.
    public enum LogFormat: String, Sendable, CaseIterable {
        /// `key=value` pairs.
        case logfmt
        /// One JSON object per line.
        case json
    }

    /// A `host:port` to listen on (`[::1]:8080` for IPv6).
    public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
        /// The host or IP literal, without brackets.
        public var host: String
        /// The TCP port (0 picks an ephemeral port).
        public var port: Int
        /// An address.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
        /// `host:port`, bracketing IPv6 literals.
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// Limits a production proxy needs; all positive.
    public struct Limits: Sendable, Equatable {
        /// Largest inbound request body; larger gets 413. Default 1 MiB (1048576).
        public var maxBodyBytes: Int = 1_048_576
        /// Concurrent inbound connections. Default 1024.
        public var maxConnections: Int = 1024
        /// Concurrent inbound connections from one IP. Default 256.
        public var perIPConnections: Int = 256
        /// Memory for one request's headers; more gets 431. Default 16384 (libmicrohttpd
        /// zeroes the whole pool on every keep-alive reset, so it is resident for every open
        /// connection: 1,000 idle connections cost ~34 MB at 32 KiB).
        public var headerMemoryBytes: Int = 16_384
        /// Largest request head (request line and headers) PushBridge takes; a larger one that
        /// fits `headerMemoryBytes` gets the dialect's 431. Default 12288 (three quarters of
        /// `headerMemoryBytes` when that is set lower).
        public var maxHeadBytes: Int = 12_288
        /// Longest request target (path and query); longer gets the dialect's 414. Default 8192.
        public var maxRequestTargetBytes: Int = 8_192
        /// An idle inbound connection is closed after this. Default 30 s.
        public var idleTimeout: Duration = .seconds(30)
        /// The longest a connection may take to deliver a whole request (head and body),
        /// however steadily it sends; past it the connection is closed. Default 10 s.
        public var requestTimeout: Duration = .seconds(10)
        /// Connect timeout to the upstream. Default 2000 ms.
        public var upstreamConnectTimeout: Duration = .milliseconds(2000)
        /// Hard deadline of one upstream call. Default 10000 ms.
        public var upstreamTimeout: Duration = .milliseconds(10_000)
        /// The defaults.
        public init() {}
    }

    /// The OpenPush API to forward to.
    public struct OpenPushUpstream: Sendable, Equatable {
        /// The base URL, `http` or `https`, e.g. `https://api.openpush.example`.
        public var baseURL: String
        /// A PEM CA bundle to trust instead of the system store. Default none.
        public var caFile: String?
        /// An upstream.
        public init(baseURL: String, caFile: String? = nil) {
            self.baseURL = baseURL
            self.caFile = caFile
        }
    }

    /// The local OpenPush double.
    public struct Sandbox: Sendable, Equatable {
        /// Start the sandbox in-process and use it as the upstream. Default `false`.
        public var embedded: Bool = false
        /// A seed file (apps, keys, devices) for the sandbox. Default none.
        public var seedPath: String?
        /// The embedded sandbox's rate-limit window in seconds (60 requests per window per
        /// app). Default 60, OpenPush's documented window; shorter only for tests.
        public var rateWindowSeconds: Int64 = 60
        /// Where the embedded sandbox listens. Default `127.0.0.1:0` (a free port, shown in the
        /// start-up line); a fixed port lets a person read `/_sandbox/sends` at a known address.
        public var listen = ListenAddress(host: "127.0.0.1", port: 0)
        /// A sandbox setting.
        public init(embedded: Bool = false, seedPath: String? = nil, rateWindowSeconds: Int64 = 60) {
            self.embedded = embedded
            self.seedPath = seedPath
            self.rateWindowSeconds = rateWindowSeconds
        }
    }

    /// The admin endpoint (metrics, audit reads) guarded by a bearer token.
    public struct Admin: Sendable {
        /// The bearer token admin callers present.
        public var token: Secret
        /// Where the admin endpoint listens. Default `127.0.0.1:9090`.
        public var listen: ListenAddress
        /// HTTPS on the admin listener (`admin.tls`); `nil` (the default) serves plain HTTP.
        public var tls: TLSFiles?
        /// An admin setting.
        public init(token: Secret, listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 9090), tls: TLSFiles? = nil) {
            self.token = token
            self.listen = listen
            self.tls = tls
        }
    }

    /// The upstream client settings these limits imply.
    public var upstreamClientConfiguration: UpstreamClientConfiguration {
        UpstreamClientConfiguration(connectTimeout: limits.upstreamConnectTimeout, timeout: limits.upstreamTimeout, caFile: openPush?.caFile)
    }
}
