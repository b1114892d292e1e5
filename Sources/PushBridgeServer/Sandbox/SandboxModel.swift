import PushBridgeCore

/// An OpenPush app as the sandbox knows it.
public struct SandboxApp: Sendable, Equatable {
    /// The app id used in paths, e.g. `app_3f9c2b`.
    public var id: String
    /// The REST key the sending routes accept for this app.
    public var restKey: String
    /// The iOS bundle id; the APNs topic is this plus `.push-type.liveactivity`.
    public var bundleId: String

    /// An app.
    public init(id: String, restKey: String, bundleId: String) {
        self.id = id
        self.restKey = restKey
        self.bundleId = bundleId
    }
}

/// A device subscription registered on an app.
public struct SandboxDevice: Sendable, Equatable {
    /// The app it belongs to.
    public var appId: String
    /// The subscription id.
    public var subscriptionId: String
    /// The ordinary APNs push token; nil once retired or superseded.
    public var pushToken: String?
    /// The `openpush_id` well-known identifier (defaults to the subscription id).
    public var openPushId: String
    /// Alias label → id (`external_id`, `onesignal_id` and custom labels).
    public var aliases: [String: String]
    /// Segment ids the device belongs to.
    public var segments: [String]
    /// Activity type → push-to-start token.
    public var pushToStartTokens: [String: String]
    /// Registration order, which is the fan-out order.
    public var sequence: Int64
    /// True once the subscription has been retired.
    public var retired: Bool

    /// A device.
    public init(appId: String, subscriptionId: String, pushToken: String?, openPushId: String? = nil,
                aliases: [String: String] = [:], segments: [String] = [], pushToStartTokens: [String: String] = [:],
                sequence: Int64 = 0, retired: Bool = false) {
        self.appId = appId
        self.subscriptionId = subscriptionId
        self.pushToken = pushToken
        self.openPushId = openPushId ?? subscriptionId
        self.aliases = aliases
        self.segments = segments
        self.pushToStartTokens = pushToStartTokens
        self.sequence = sequence
        self.retired = retired
    }

    /// True when the device can be targeted at all.
    public var isReachable: Bool { !retired && pushToken != nil }
}

/// A Live Activity registration, keyed on (app, subscription, activity id).
public struct SandboxActivity: Sendable, Equatable {
    /// The app.
    public var appId: String
    /// The owning subscription.
    public var subscriptionId: String
    /// The activity id.
    public var activityId: String
    /// The ActivityAttributes type name.
    public var activityType: String
    /// The update token ActivityKit handed the device.
    public var updateToken: String
    /// First registration time; never refreshed by re-registering.
    public var startedAt: Int64
    /// The registered stale time, clamped into the active window.
    public var staleAt: Int64
    /// When the row was ended, if it was.
    public var endedAt: Int64?

    /// An activity registration.
    public init(appId: String, subscriptionId: String, activityId: String, activityType: String,
                updateToken: String, startedAt: Int64, staleAt: Int64, endedAt: Int64? = nil) {
        self.appId = appId
        self.subscriptionId = subscriptionId
        self.activityId = activityId
        self.activityType = activityType
        self.updateToken = updateToken
        self.startedAt = startedAt
        self.staleAt = staleAt
        self.endedAt = endedAt
    }

    /// True when `update` (and `start`-side lookups) still target it at `now`.
    public func isActive(at now: Int64) -> Bool {
        endedAt == nil && now < startedAt + OpenPushLimits.activeWindowSeconds
    }

    /// True when `end` still targets it at `now`.
    public func isEndable(at now: Int64) -> Bool {
        endedAt == nil && now < startedAt + OpenPushLimits.endWindowSeconds
    }
}

/// A recorded idempotency key on the start route.
public struct SandboxIdempotencyRecord: Sendable, Equatable {
    /// The app the key is scoped to.
    public var appId: String
    /// The UUID key (as sent).
    public var key: String
    /// The notification id of the first use.
    public var notificationId: String
    /// When it was first used.
    public var createdAt: Int64

    /// A record.
    public init(appId: String, key: String, notificationId: String, createdAt: Int64) {
        self.appId = appId
        self.key = key
        self.notificationId = notificationId
        self.createdAt = createdAt
    }
}
