/// One updateLiveActivity notification → one OpenPush update or end.
enum PushwooshUpdateTranslation {
    /// Translates notification `scope.index`; nil when a rule is broken (see `scope.errors`).
    static func translate(_ n: JSONObject, appId: String, scope: inout PushwooshScope) -> OpenPushRequest? {
        var r = FieldReader(n, path: scope.prefix)
        var la = FieldReader(r.object(.live_activity, required: true) ?? JSONObject(), path: scope.livePrefix)
        let hasLive = r.has(.live_activity) && r.errors.isEmpty

        let activityId = PushwooshCommonFields.activityId(&r, scope: &scope)
        var update = OpenPushUpdate(appId: appId, activityId: activityId ?? "")
        if hasLive {
            if let event = la.string(.event, required: true) {
                if event == "update" || event == "end" { update.event = event }
                else { scope.reject(scope.liveField("event"), "must be \"update\" or \"end\" (use startLiveActivity to start)") }
            }
            update.eventUpdates = PushwooshCommonFields.contentState(&la, scope: &scope)
            update.relevanceScore = PushwooshCommonFields.relevance(&la, scope: &scope)
            update.staleDate = PushwooshCommonFields.date("stale-date", &la, scope: &scope)
            if let dismissal = PushwooshCommonFields.date("dismissal-date", &la, scope: &scope) {
                if update.event == "end" {
                    update.dismissalDate = dismissal
                } else {
                    scope.note(scope.liveField("dismissal-date"), .dropped,
                               "OpenPush accepts dismissal_date on end only (it would reject this update); it is not sent — send it with event \"end\"")
                }
            }
        }
        let alert = PushwooshAlert.read(&r, required: false, scope: &scope)
        update.headings = alert.headings
        update.contents = alert.contents
        let subtitle = r.raw(.subtitle)
        let subtitleShown = subtitle?.stringValue.map { !OpenPushRules.isBlank($0) } ?? false
        if subtitle != nil {
            var why = scope.tableNote("notifications[].subtitle")
            if !alert.isPresent, subtitleShown {
                why += " Because neither content nor title is set, this update arrives without the alert Pushwoosh would have shown."
            }
            scope.note(scope.field("subtitle"), .dropped, why)
        }
        update.priority = PushwooshCommonFields.priority(&r, event: update.event ?? "update", scope: &scope)
        update.iosSound = PushwooshCommonFields.sound(&r, hasAlert: alert.isPresent, subtitle: subtitleShown, scope: &scope)

        scope.absorb(r)
        scope.absorb(la)
        scope.dropUnread(r, tablePrefix: "notifications[]")
        if hasLive { scope.dropUnread(la, tablePrefix: "notifications[].live_activity") }
        guard scope.errors.isEmpty, let activityId, let event = update.event else { return nil }
        update.name = PushwooshCommonFields.name(event, activityId: activityId, scope: &scope)
        return OpenPushRequest(.update(update), sourceFields: scope.sourceFields)
    }
}
