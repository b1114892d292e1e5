/// An OpenPush start request: `POST /apps/{app_id}/activities/activity/{activity_type}`.
/// Fields are optional so that a request can be decoded whatever it holds and then validated
/// by `OpenPushRules`, which reports every broken rule at once.
public struct OpenPushStart: Sendable, Equatable {
    /// OpenPush app id (path).
    public var appId: String
    /// The ActivityAttributes type name (path); forced as `attributes-type`.
    public var activityType: String
    /// Must be exactly "start".
    public var event: String? = "start"
    /// Non-blank, no `/`.
    public var activityId: String?
    /// Non-empty object → ActivityKit attributes.
    public var eventAttributes: JSONObject?
    /// Non-empty object → content-state.
    public var eventUpdates: JSONObject?
    /// Non-blank, ≤ 128 characters.
    public var name: String?
    /// Language map with a non-blank `en`.
    public var contents: JSONObject?
    /// Language map with a non-blank `en`.
    public var headings: JSONObject?
    /// Unix seconds; ≥ 1e11 is rejected as milliseconds.
    public var staleDate: Int64?
    /// Rejected on a start; present only so a decoded request can be validated.
    public var dismissalDate: Int64?
    /// Exactly 5 or 10; OpenPush defaults to 10.
    public var priority: Int64?
    /// In [0, 1].
    public var relevanceScore: JSONNumber?
    /// First non-blank of `ios_sound` / `sound` wins.
    public var iosSound: String?
    /// See `iosSound`.
    public var sound: String?
    /// A UUID; replays within 30 days return the first notification id.
    public var idempotencyKey: String?
    /// Targeting: label → id or list of ids.
    public var includeAliases: JSONObject?
    /// Targeting: subscription ids.
    public var includeSubscriptionIds: [String]?
    /// Targeting: segment ids.
    public var includedSegments: [String]?
    /// Only valid alongside `includedSegments`.
    public var excludedSegments: [String]?
    /// Targeting: OneSignal-style filter list.
    public var filters: [JSONValue]?

    /// A start for an app and activity type; every body field empty.
    public init(appId: String, activityType: String) {
        self.appId = appId
        self.activityType = activityType
    }

    /// The request path.
    public var path: String {
        OpenPushPath.start(appId: appId, activityType: activityType)
    }

    /// The JSON body, in OpenPush's documented field order.
    public var body: JSONObject {
        var o = JSONObject()
        o.reserveCapacity(20)
        if let event { o.appendUnchecked("event", .string(event)) }
        if let activityId { o.appendUnchecked("activity_id", .string(activityId)) }
        if let name { o.appendUnchecked("name", .string(name)) }
        if let eventAttributes { o.appendUnchecked("event_attributes", .object(eventAttributes)) }
        if let eventUpdates { o.appendUnchecked("event_updates", .object(eventUpdates)) }
        if let headings { o.appendUnchecked("headings", .object(headings)) }
        if let contents { o.appendUnchecked("contents", .object(contents)) }
        if let includeAliases { o.appendUnchecked("include_aliases", .object(includeAliases)) }
        if let includeSubscriptionIds { o.appendUnchecked("include_subscription_ids", .array(includeSubscriptionIds.map(JSONValue.string))) }
        if let includedSegments { o.appendUnchecked("included_segments", .array(includedSegments.map(JSONValue.string))) }
        if let excludedSegments { o.appendUnchecked("excluded_segments", .array(excludedSegments.map(JSONValue.string))) }
        if let filters { o.appendUnchecked("filters", .array(filters)) }
        if let staleDate { o.appendUnchecked("stale_date", .int(staleDate)) }
        if let dismissalDate { o.appendUnchecked("dismissal_date", .int(dismissalDate)) }
        if let priority { o.appendUnchecked("priority", .int(priority)) }
        if let relevanceScore { o.appendUnchecked("ios_relevance_score", .number(relevanceScore)) }
        if let iosSound { o.appendUnchecked("ios_sound", .string(iosSound)) }
        if let sound { o.appendUnchecked("sound", .string(sound)) }
        if let idempotencyKey { o.appendUnchecked("idempotency_key", .string(idempotencyKey)) }
        return o
    }

    /// The number of targeting methods set (OpenPush requires exactly one).
    public var targetingCount: Int {
        (includeAliases != nil ? 1 : 0) + (includeSubscriptionIds != nil ? 1 : 0) + (includedSegments != nil ? 1 : 0) + (filters != nil ? 1 : 0)
    }
}
