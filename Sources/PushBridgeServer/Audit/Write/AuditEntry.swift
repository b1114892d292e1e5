import PushBridgeCore

/// What is known about a request before it is forwarded: the row ``AuditStore/begin(_:)``
/// writes. Bodies must already be redacted (see ``AuditEntry/init(requestId:receivedAt:path:route:translation:inboundBody:keyFingerprint:targetApp:)``,
/// which does it).
public struct AuditEntry: Sendable, Equatable {
    /// The proxy's id for the request (``RequestID``), unique and time-sortable.
    public var requestId: String
    /// When the request arrived, Unix milliseconds.
    public var receivedAt: Int64
    /// The request path without its query string (a query may hold credentials).
    public var path: String?
    /// The dialect, nil for a route no dialect has.
    public var dialect: DialectName?
    /// The route, nil for a route no dialect has.
    public var route: RouteKind?
    /// The caller's app (OneSignal app id, Pushwoosh application code, BuzzKit workspace).
    public var sourceApp: String?
    /// The OpenPush app it goes to.
    public var targetApp: String?
    /// The name of the configured app that accepted it; nil when none did.
    public var appName: String?
    /// The Live Activity type (starts).
    public var activityType: String?
    /// The Live Activity id.
    public var activityId: String?
    /// `start`, `update` or `end`.
    public var event: String?
    /// The fingerprint of the credential the caller presented (never the credential).
    public var keyFingerprint: String?
    /// The inbound body as redacted JSON text.
    public var inboundBody: String?
    /// The translated request(s) as redacted JSON text.
    public var translated: String?
    /// The elements of ``translated`` (OpenPush sends), when the translation told them, so the
    /// audit's rollups need not count them in the text; nil: counted from the text.
    public var openPushSends: Int?
    /// The translation's findings, also written to the `findings` table.
    public var findings: [Finding]
    /// `METHOD /path` of a route PushBridge does not translate, written to the `route`
    /// column in place of ``route`` (outcome ``AuditOutcome/unhandled``).
    public var unhandledRoute: String?

    /// An entry from already-redacted parts.
    public init(requestId: String, receivedAt: Int64, path: String? = nil, dialect: DialectName? = nil, route: RouteKind? = nil,
                sourceApp: String? = nil, targetApp: String? = nil, activityType: String? = nil, activityId: String? = nil,
                event: String? = nil, keyFingerprint: String? = nil, inboundBody: String? = nil, translated: String? = nil,
                findings: [Finding] = []) {
        self.requestId = requestId
        self.receivedAt = receivedAt
        self.path = path
        self.dialect = dialect
        self.route = route
        self.sourceApp = sourceApp
        self.targetApp = targetApp
        self.activityType = activityType
        self.activityId = activityId
        self.event = event
        self.keyFingerprint = keyFingerprint
        self.inboundBody = inboundBody
        self.translated = translated
        self.findings = findings
    }
}
