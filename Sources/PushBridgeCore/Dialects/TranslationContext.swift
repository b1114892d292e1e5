/// What a translation needs to know beyond the request: the app's configuration and the time.
/// The default passes app ids through unchanged and maps nothing.
public struct TranslationContext: Sendable {
    /// How Pushwoosh `devices` (push tokens) are expressed in OpenPush targeting.
    public enum DeviceTargeting: Sendable, Equatable {
        /// As `include_subscription_ids` (the migration imported tokens as subscription ids).
        case subscriptionIds
        /// As `include_aliases.{label}`.
        case alias(String)
    }

    /// The OpenPush app id to send to; nil passes the source app id through.
    public var targetAppId: String?
    /// The source app (workspace) when the request itself does not name one (BuzzKit).
    public var sourceAppId: String?
    /// What happens to a segment name the segment map does not hold.
    public enum UnmappedSegments: String, Sendable, Equatable, CaseIterable {
        /// Sent as is (as an OpenPush segment id), with a warning.
        case forward
        /// The request is rejected, naming the segment.
        case reject
    }

    /// OneSignal segment / Pushwoosh filter name → OpenPush segment id. nil: no map configured.
    public var segmentMap: [String: String]?
    /// What an unmapped segment name does; nil: `forward` without a map, `reject` with one.
    public var unmappedSegments: UnmappedSegments?
    /// How Pushwoosh devices are targeted.
    public var deviceTargeting: DeviceTargeting
    /// True when `deviceTargeting` was chosen by configuration rather than defaulted.
    public var deviceTargetingConfigured: Bool
    /// The current time in Unix seconds (for `send_date` windows).
    public var now: Int64
    /// The proxy's id for this request, used where an id must be synthesized (BuzzKit start's
    /// `activity_id`); nil derives one from the body so translation stays deterministic.
    public var requestId: String?
    /// True when the caller's credential already came in a header (Pushwoosh
    /// `Authorization: Token …`): the body's `request.auth` is then optional, since the proxy
    /// has checked the credential before translating.
    public var credentialInHeader: Bool = false

    /// A context; `now` is required so that translation stays a pure function.
    public init(now: Int64, requestId: String? = nil, targetAppId: String? = nil, sourceAppId: String? = nil, segmentMap: [String: String]? = nil,
                unmappedSegments: UnmappedSegments? = nil, deviceTargeting: DeviceTargeting = .subscriptionIds, deviceTargetingConfigured: Bool = false) {
        self.now = now
        self.requestId = requestId
        self.targetAppId = targetAppId
        self.sourceAppId = sourceAppId
        self.segmentMap = segmentMap
        self.unmappedSegments = unmappedSegments
        self.deviceTargeting = deviceTargeting
        self.deviceTargetingConfigured = deviceTargetingConfigured
    }

    /// The unmapped-segment behaviour in force (the configured one, or the default).
    public var unmappedSegmentsInForce: UnmappedSegments { unmappedSegments ?? (segmentMap == nil ? .forward : .reject) }

    /// The OpenPush app id for a source app id.
    public func openPushApp(for source: String) -> String { targetAppId ?? source }
}
