import PushBridgeCore

/// One source app and the OpenPush app it migrates to.
public struct AppConfiguration: Sendable {
    /// A unique name used in logs, metrics and the audit.
    public var name: String
    /// The dialect its callers speak.
    public var dialect: DialectName { didSet { idempotencyScope = Self.idempotencyScope(dialect, sourceAppId) } }
    /// OneSignal app UUID, Pushwoosh application code or BuzzKit workspace id.
    public var sourceAppId: String { didSet { idempotencyScope = Self.idempotencyScope(dialect, sourceAppId) } }
    /// The source app a caller's idempotency key is scoped to (``IdempotencyKeys/scoped(_:sourceApp:)``):
    /// `<dialect>/<source_app_id>`, which stays the same when the app is renamed. Made with the
    /// app (and again when its dialect or source app id is set), not per request (issue 31).
    public private(set) var idempotencyScope: String
    /// The OpenPush app id requests are forwarded to.
    public var openPushAppId: String
    /// The OpenPush REST key; `nil` only with `passThroughKey`.
    public var openPushKey: Secret?
    /// Credentials callers must present (empty only with `passThroughKey`).
    public var callers: [CallerCredential]
    /// Forward the caller's own key as the OpenPush key instead of verifying it. Default `false`.
    public var passThroughKey: Bool
    /// OneSignal segment / Pushwoosh filter name → OpenPush segment id. Default empty.
    public var segmentMap: [String: String]
    /// What a segment name missing from `segmentMap` does. Default nil: forwarded with a
    /// warning when there is no map, rejected when there is one.
    public var unmappedSegments: TranslationContext.UnmappedSegments?
    /// How Pushwoosh devices map to OpenPush targets. Default `.subscriptionIds`.
    public var devices: DevicesMapping
    /// The migration mode. Default `.openpush`.
    public var mode: MigrationMode
    /// Per-route mode overrides (`start`, `update`, `send`). Default none.
    public var routeModes: [RouteKind: MigrationMode]
    /// The shadow, required when any route is in `.shadow`. Default none.
    public var shadow: ShadowSettings?
    /// The rollout stage, required when any route is in `.rollout`. Default none.
    public var rollout: RolloutSettings?

    /// An app; defaults as documented on each property.
    public init(name: String, dialect: DialectName, sourceAppId: String, openPushAppId: String, openPushKey: Secret?, callers: [CallerCredential] = [], passThroughKey: Bool = false, segmentMap: [String: String] = [:],
                unmappedSegments: TranslationContext.UnmappedSegments? = nil, devices: DevicesMapping = .subscriptionIds,
                mode: MigrationMode = .openpush, routeModes: [RouteKind: MigrationMode] = [:], shadow: ShadowSettings? = nil,
                rollout: RolloutSettings? = nil) {
        self.mode = mode
        self.rollout = rollout
        self.routeModes = routeModes
        self.shadow = shadow
        self.name = name
        self.dialect = dialect
        self.sourceAppId = sourceAppId
        self.idempotencyScope = Self.idempotencyScope(dialect, sourceAppId)
        self.openPushAppId = openPushAppId
        self.openPushKey = openPushKey
        self.callers = callers
        self.passThroughKey = passThroughKey
        self.segmentMap = segmentMap
        self.unmappedSegments = unmappedSegments
        self.devices = devices
    }

    /// `<dialect>/<source_app_id>`: ``idempotencyScope``'s text.
    private static func idempotencyScope(_ dialect: DialectName, _ sourceAppId: String) -> String {
        dialect.rawValue + "/" + sourceAppId
    }

    /// How a Pushwoosh `devices` list becomes OpenPush targets.
    public enum DevicesMapping: Sendable, Equatable, CustomStringConvertible {
        /// Device values are OpenPush subscription ids (`"subscription_ids"`).
        case subscriptionIds
        /// Device values are external ids under this alias label (`"alias:<label>"`).
        case alias(String)

        /// The configuration spelling.
        public var description: String {
            switch self {
            case .subscriptionIds: "subscription_ids"
            case .alias(let label): "alias:\(label)"
            }
        }
    }
}

/// A credential a caller presents, stored only as its SHA-256 digest.
public struct CallerCredential: Sendable, Equatable, CustomStringConvertible {
    /// The SHA-256 digest of the secret (32 bytes).
    public let digest: [UInt8]

    /// From a secret value (e.g. read from an environment variable).
    public init(secret: String) { digest = Fingerprint.sha256(secret) }

    /// From a full SHA-256 hex digest (64 hex digits, any case); `nil` if malformed.
    public init?(sha256Hex: String) {
        guard let bytes = Fingerprint.bytes(fromHex: sha256Hex), bytes.count == 32 else { return nil }
        digest = bytes
    }

    /// `sha256:` and the first 12 hex digits: enough to recognize, never enough to use.
    public var description: String { Fingerprint.short(digest: digest) }
}
