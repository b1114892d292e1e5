/// One startLiveActivity notification → one OpenPush start.
enum PushwooshStartTranslation {
    /// The placeholder sent when `attributes` is `{}`: OpenPush requires a non-empty object and
    /// ActivityKit ignores keys its attributes type does not declare.
    static let placeholderKey = "pushbridge_placeholder"

    /// Translates notification `scope.index`; nil when a rule is broken (see `scope.errors`).
    static func translate(_ n: JSONObject, appId: String, context: TranslationContext, scope: inout PushwooshScope) -> OpenPushRequest? {
        var r = FieldReader(n, path: scope.prefix)
        var la = FieldReader(r.object(.live_activity, required: true) ?? JSONObject(), path: scope.livePrefix)
        let hasLive = r.has(.live_activity) && r.errors.isEmpty

        let activityId = PushwooshCommonFields.activityId(&r, scope: &scope)
        var start = OpenPushStart(appId: appId, activityType: "")
        if hasLive {
            if let event = la.string(.event), event != "start" {
                scope.reject(scope.liveField("event"), "must be \"start\" on startLiveActivity (use updateLiveActivity to update or end)")
            }
            if let type = la.string("attributes-type", required: true) {
                if OpenPushRules.isBlank(type) { scope.reject(scope.liveField("attributes-type"), "must name the ActivityAttributes type") }
                else if let problem = OpenPushPath.problem(segment: type) { scope.reject(scope.liveField("attributes-type"), problem) }
                start.activityType = type
            }
            start.eventUpdates = PushwooshCommonFields.contentState(&la, scope: &scope)
            start.eventAttributes = attributes(&la, scope: &scope)
            start.relevanceScore = PushwooshCommonFields.relevance(&la, scope: &scope)
            start.staleDate = PushwooshCommonFields.date("stale-date", &la, scope: &scope)
        }
        let alert = PushwooshAlert.read(&r, required: true, scope: &scope)
        start.headings = alert.headings
        start.contents = alert.contents
        start.priority = PushwooshCommonFields.priority(&r, event: "start", scope: &scope)
        start.iosSound = PushwooshCommonFields.sound(&r, hasAlert: alert.isPresent, scope: &scope)
        PushwooshTargeting.apply(&r, to: &start, context: context, scope: &scope)
        let sendAt = PushwooshSchedule.read(&r, context: context, scope: &scope)

        scope.absorb(r)
        scope.absorb(la)
        scope.dropUnread(r, tablePrefix: "notifications[]")
        if hasLive { scope.dropUnread(la, tablePrefix: "notifications[].live_activity") }
        guard scope.errors.isEmpty, let activityId else { return nil }
        start.activityId = activityId
        start.name = PushwooshCommonFields.name("start", activityId: activityId, scope: &scope)
        return OpenPushRequest(.start(start), sendAt: sendAt, sourceFields: scope.sourceFields)
    }

    /// `live_activity.attributes` (required object) → `event_attributes`; `{}` gets a placeholder key.
    private static func attributes(_ la: inout FieldReader, scope: inout PushwooshScope) -> JSONObject? {
        guard let o = la.object(.attributes, required: true) else { return nil }
        if !o.isEmpty { return o }
        scope.note(scope.liveField("attributes"), .synthesized,
                   MessageText("attributes is {}, but OpenPush requires a non-empty object: sent {\"\(placeholderKey)\": true}, which ActivityKit ignores because the attributes type does not declare it").text)
        return [placeholderKey: .bool(true)]
    }
}
