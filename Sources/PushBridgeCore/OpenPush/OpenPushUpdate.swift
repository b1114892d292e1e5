/// An OpenPush update or end request: `POST /apps/{app_id}/live_activities/{activity_id}/notifications`.
/// Targeting is fixed to the activity id in the path.
public struct OpenPushUpdate: Sendable, Equatable {
    /// OpenPush app id (path).
    public var appId: String
    /// The activity id (path): non-blank, no `/`.
    public var activityId: String
    /// "update" or "end".
    public var event: String?
    /// Non-empty object, on both events.
    public var eventUpdates: JSONObject?
    /// Required, ≤ 128 characters.
    public var name: String?
    /// Optional; when present must contain a non-blank `en`.
    public var contents: JSONObject?
    /// Optional; when present must contain a non-blank `en`.
    public var headings: JSONObject?
    /// Unix seconds.
    public var staleDate: Int64?
    /// Unix seconds; end only.
    public var dismissalDate: Int64?
    /// 5 or 10; OpenPush's APNs default is 10 for end and 5 for update.
    public var priority: Int64?
    /// In [0, 1].
    public var relevanceScore: JSONNumber?
    /// First non-blank of `ios_sound` / `sound` wins.
    public var iosSound: String?
    /// See `iosSound`.
    public var sound: String?

    /// An update for an app and activity id; every body field empty.
    public init(appId: String, activityId: String, event: String? = nil) {
        self.appId = appId
        self.activityId = activityId
        self.event = event
    }

    /// The request path.
    public var path: String {
        OpenPushPath.update(appId: appId, activityId: activityId)
    }

    /// The JSON body, in OpenPush's documented field order.
    public var body: JSONObject {
        var o = JSONObject()
        o.reserveCapacity(20)
        if let event { o.appendUnchecked("event", .string(event)) }
        if let name { o.appendUnchecked("name", .string(name)) }
        if let eventUpdates { o.appendUnchecked("event_updates", .object(eventUpdates)) }
        if let headings { o.appendUnchecked("headings", .object(headings)) }
        if let contents { o.appendUnchecked("contents", .object(contents)) }
        if let staleDate { o.appendUnchecked("stale_date", .int(staleDate)) }
        if let dismissalDate { o.appendUnchecked("dismissal_date", .int(dismissalDate)) }
        if let priority { o.appendUnchecked("priority", .int(priority)) }
        if let relevanceScore { o.appendUnchecked("ios_relevance_score", .number(relevanceScore)) }
        if let iosSound { o.appendUnchecked("ios_sound", .string(iosSound)) }
        if let sound { o.appendUnchecked("sound", .string(sound)) }
        return o
    }
}
