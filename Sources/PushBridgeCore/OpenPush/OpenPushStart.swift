/// An OpenPush start request: `POST /apps/{app_id}/activities/activity/{activity_type}`.
/// Fields are optional so that a request can be decoded whatever it holds and then validated
/// by `OpenPushRules`, which reports every broken rule at once.
public struct OpenPushStart: Sendable, Equatable {
    /// The fields, in one box shared by copies until one is changed (see ``OpenPushStartStorage``).
    private var storage: OpenPushStartStorage

    /// OpenPush app id (path).
    public var appId: String { get { storage.fields.appId } _modify { yield &unique().fields.appId } }
    /// The ActivityAttributes type name (path); forced as `attributes-type`.
    public var activityType: String { get { storage.fields.activityType } _modify { yield &unique().fields.activityType } }
    /// Must be exactly "start".
    public var event: String? { get { storage.fields.event } _modify { yield &unique().fields.event } }
    /// Non-blank, no `/`.
    public var activityId: String? { get { storage.fields.activityId } _modify { yield &unique().fields.activityId } }
    /// Non-empty object → ActivityKit attributes.
    public var eventAttributes: JSONObject? { get { storage.fields.eventAttributes } _modify { yield &unique().fields.eventAttributes } }
    /// Non-empty object → content-state.
    public var eventUpdates: JSONObject? { get { storage.fields.eventUpdates } _modify { yield &unique().fields.eventUpdates } }
    /// Non-blank, ≤ 128 characters.
    public var name: String? { get { storage.fields.name } _modify { yield &unique().fields.name } }
    /// Language map with a non-blank `en`.
    public var contents: JSONObject? { get { storage.fields.contents } _modify { yield &unique().fields.contents } }
    /// Language map with a non-blank `en`.
    public var headings: JSONObject? { get { storage.fields.headings } _modify { yield &unique().fields.headings } }
    /// Unix seconds; ≥ 1e11 is rejected as milliseconds.
    public var staleDate: Int64? { get { storage.fields.staleDate } _modify { yield &unique().fields.staleDate } }
    /// Rejected on a start; present only so a decoded request can be validated.
    public var dismissalDate: Int64? { get { storage.fields.dismissalDate } _modify { yield &unique().fields.dismissalDate } }
    /// Exactly 5 or 10; OpenPush defaults to 10.
    public var priority: Int64? { get { storage.fields.priority } _modify { yield &unique().fields.priority } }
    /// In [0, 1].
    public var relevanceScore: JSONNumber? { get { storage.fields.relevanceScore } _modify { yield &unique().fields.relevanceScore } }
    /// First non-blank of `ios_sound` / `sound` wins.
    public var iosSound: String? { get { storage.fields.iosSound } _modify { yield &unique().fields.iosSound } }
    /// See `iosSound`.
    public var sound: String? { get { storage.fields.sound } _modify { yield &unique().fields.sound } }
    /// A UUID; replays within 30 days return the first notification id.
    public var idempotencyKey: String? { get { storage.fields.idempotencyKey } _modify { yield &unique().fields.idempotencyKey } }
    /// Targeting: label → id or list of ids.
    public var includeAliases: JSONObject? { get { storage.fields.includeAliases } _modify { yield &unique().fields.includeAliases } }
    /// Targeting: subscription ids.
    public var includeSubscriptionIds: [String]? { get { storage.fields.includeSubscriptionIds } _modify { yield &unique().fields.includeSubscriptionIds } }
    /// Targeting: segment ids.
    public var includedSegments: [String]? { get { storage.fields.includedSegments } _modify { yield &unique().fields.includedSegments } }
    /// Only valid alongside `includedSegments`.
    public var excludedSegments: [String]? { get { storage.fields.excludedSegments } _modify { yield &unique().fields.excludedSegments } }
    /// Targeting: OneSignal-style filter list.
    public var filters: [JSONValue]? { get { storage.fields.filters } _modify { yield &unique().fields.filters } }

    /// A start for an app and activity type; every body field empty.
    public init(appId: String, activityType: String) {
        storage = OpenPushStartStorage(OpenPushStartFields(appId: appId, activityType: activityType))
    }

    /// The box, made this start's own before a change when another start shares it.
    private mutating func unique() -> OpenPushStartStorage {
        if !isKnownUniquelyReferenced(&storage) { storage = OpenPushStartStorage(storage.fields) }
        return storage
    }

    /// Equal when every field is (the box shared is the quick case).
    public static func == (a: OpenPushStart, b: OpenPushStart) -> Bool {
        a.storage === b.storage || a.storage.fields == b.storage.fields
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

extension OpenPushStart: CustomReflectable {
    /// The fields, as the struct showed them when it held them itself.
    public var customMirror: Mirror { Mirror(self, children: Mirror(reflecting: storage.fields).children, displayStyle: .struct) }
}
