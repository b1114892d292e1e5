import PushBridgeCore

/// How an app's requests are handled during a migration.
public enum MigrationMode: String, Sendable, CaseIterable {
    /// Forward the original request to the legacy provider and return its answer byte for
    /// byte; translate, validate and audit, but send nothing to OpenPush.
    case observe
    /// One provider answers, the other gets its version in the background; compare both.
    case shadow
    /// New starts go to OpenPush for a sticky percent of cohort keys and to the legacy
    /// provider for the rest (``RolloutSettings``); updates and ends follow their activity.
    case rollout
    /// Translate and forward to OpenPush (the default).
    case openpush

    /// Every mode's spelling, for error messages: `observe, shadow, rollout, openpush`.
    static var spelled: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// Which side answers the caller in shadow mode.
public enum ShadowPrimary: String, Sendable, CaseIterable {
    /// The legacy provider answers; OpenPush is the shadow.
    case legacy
    /// OpenPush answers; the legacy provider is the shadow.
    case openpush
}

/// An app's shadow: which side is primary, how much is sampled, and where the OpenPush
/// shadow goes (so a shadow Live Activity need not reach the primary's phones).
public struct ShadowSettings: Sendable, Equatable {
    /// The side that answers the caller. Default `.legacy`.
    public var primary: ShadowPrimary = .legacy
    /// Percent of requests shadowed, 0–100. Default 100.
    public var samplePercent: Int = 100
    /// Send the OpenPush shadow to this base URL instead of `openpush.base_url` (another
    /// OpenPush, a sandbox). `"sandbox"` in the file means the embedded sandbox. Default none.
    public var openPushBaseURL: String?
    /// Send the OpenPush shadow to this OpenPush app instead of the app's. Default none.
    public var openPushAppId: String?
    /// The REST key for `openPushAppId` (required with it).
    public var openPushKey: Secret?
    /// Target the OpenPush shadow at this segment instead of the request's audience. Default none.
    public var segment: String?

    /// A shadow setting; defaults as documented on each property.
    public init(primary: ShadowPrimary = .legacy, samplePercent: Int = 100, openPushBaseURL: String? = nil, openPushAppId: String? = nil,
                openPushKey: Secret? = nil, segment: String? = nil) {
        self.primary = primary
        self.samplePercent = samplePercent
        self.openPushBaseURL = openPushBaseURL
        self.openPushAppId = openPushAppId
        self.openPushKey = openPushKey
        self.segment = segment
    }

    /// Whether the OpenPush side of this shadow reaches other phones than the app's own
    /// OpenPush audience: another base URL, another app, or one segment.
    public var openPushIsIsolated: Bool { openPushBaseURL != nil || openPushAppId != nil || segment != nil }
}

extension AppConfiguration {
    /// The mode for a route: the route's override, else the app's mode.
    public func mode(for route: RouteKind) -> MigrationMode { routeModes[route] ?? mode }

    /// The modes the app uses on any route.
    var modesInUse: Set<MigrationMode> { Set([mode] + Array(routeModes.values)) }

    /// Why this app's shadow would reach the same phones twice, or nil when it cannot.
    public var sameAudienceWarning: String? {
        guard modesInUse.contains(.shadow), let shadow else { return nil }
        switch shadow.primary {
        case .openpush:
            return "app \(name): the legacy shadow sends to the same phones as the OpenPush primary; every shadowed Live Activity arrives twice"
        case .legacy where !shadow.openPushIsIsolated:
            return "app \(name): the OpenPush shadow goes to app \(openPushAppId) with the request's own audience, the same phones as the legacy primary; set shadow.openpush_app_id, shadow.segment or shadow.openpush_base_url"
        case .legacy:
            return nil
        }
    }
}
