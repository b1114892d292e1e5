/// Reads OpenPush request bodies as OpenPush itself would: known keys typed, unknown keys
/// ignored (and listed, since silently ignoring them is what PushBridge warns about).
public struct OpenPushDecoded<Request: Sendable>: Sendable {
    /// The request as far as it could be read.
    public var request: Request
    /// Type errors and every broken field rule.
    public var violations: [RuleViolation]
    /// Body keys OpenPush does not know and silently ignores.
    public var ignoredKeys: [String]
}

extension OpenPushStart {
    /// The body keys of the start route.
    public static let knownKeys: Set<String> = [
        "event", "activity_id", "event_attributes", "event_updates", "name", "contents", "headings",
        "stale_date", "dismissal_date", "priority", "ios_relevance_score", "ios_sound", "sound",
        "idempotency_key", "include_aliases", "include_subscription_ids", "included_segments",
        "excluded_segments", "filters",
    ]

    /// Decodes and validates a start body.
    public static func decode(appId: String, activityType: String, body: JSONObject) -> OpenPushDecoded<OpenPushStart> {
        var r = FieldReader(body)
        var s = OpenPushStart(appId: appId, activityType: activityType)
        s.event = r.string("event")
        s.activityId = r.string("activity_id")
        s.eventAttributes = r.object("event_attributes")
        s.eventUpdates = r.object("event_updates")
        s.name = r.string("name")
        s.contents = r.object("contents")
        s.headings = r.object("headings")
        s.staleDate = r.integer("stale_date")
        s.dismissalDate = r.integer("dismissal_date")
        s.priority = r.integer("priority")
        s.relevanceScore = r.number("ios_relevance_score")
        s.iosSound = r.string("ios_sound")
        s.sound = r.string("sound")
        s.idempotencyKey = r.string("idempotency_key")
        s.includeAliases = r.object("include_aliases")
        s.includeSubscriptionIds = r.stringArray("include_subscription_ids")
        s.includedSegments = r.stringArray("included_segments")
        s.excludedSegments = r.stringArray("excluded_segments")
        s.filters = r.array("filters")
        let typeErrors = r.errors.map { RuleViolation(field: $0.field, rule: $0.rule) }
        let typed = Set(typeErrors.map(\.field))
        let rules = OpenPushRules.validate(s).filter { !typed.contains($0.field) }
        return OpenPushDecoded(request: s, violations: typeErrors + rules, ignoredKeys: r.unread.map(\.key))
    }
}

extension OpenPushUpdate {
    /// The body keys of the update/end route.
    public static let knownKeys: Set<String> = [
        "event", "event_updates", "name", "contents", "headings", "stale_date", "dismissal_date",
        "priority", "ios_relevance_score", "ios_sound", "sound",
    ]

    /// Decodes and validates an update/end body.
    public static func decode(appId: String, activityId: String, body: JSONObject) -> OpenPushDecoded<OpenPushUpdate> {
        var r = FieldReader(body)
        var u = OpenPushUpdate(appId: appId, activityId: activityId)
        u.event = r.string("event")
        u.eventUpdates = r.object("event_updates")
        u.name = r.string("name")
        u.contents = r.object("contents")
        u.headings = r.object("headings")
        u.staleDate = r.integer("stale_date")
        u.dismissalDate = r.integer("dismissal_date")
        u.priority = r.integer("priority")
        u.relevanceScore = r.number("ios_relevance_score")
        u.iosSound = r.string("ios_sound")
        u.sound = r.string("sound")
        let typeErrors = r.errors.map { RuleViolation(field: $0.field, rule: $0.rule) }
        let typed = Set(typeErrors.map(\.field))
        let rules = OpenPushRules.validate(u).filter { !typed.contains($0.field) }
        return OpenPushDecoded(request: u, violations: typeErrors + rules, ignoredKeys: r.unread.map(\.key))
    }
}
