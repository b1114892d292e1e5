/// `event: "update"` or `"end"` → `POST /apps/{app}/live_activities/{activityId}/notifications`.
extension BuzzKitTranslator {
    /// Builds the update or end; nil when a required field is missing.
    mutating func update(event: BuzzKitEvent, state: JSONObject?, priority: Int64?, stale: Int64?, alert: BuzzKitAlert) -> OpenPushRequest? {
        var activityId = requiredString("activityId", MessageText("on \(event.rawValue) (the Activity.id the device registered, or the activityId PushBridge returned for a server start)").text)
        if let id = activityId, !checkedActivityId(id) { activityId = nil }
        let to = reader.string(.to)
        if let to, let activityId {
            note("to", .caveat,
                 MessageText("OpenPush targets an \(event.rawValue) by activity id alone and reaches every device holding activity \"\(activityId)\", not only subscriber \"\(to)\"; \"to\" is not forwarded").text)
        }
        drop("attributesType", row: "attributesType (update, end)")
        drop("attributes", row: "attributes (update, end)")
        var dismissal: Int64?
        if event == .end {
            dismissal = isoDate("dismissalDate", target: "dismissal_date")
        } else {
            drop("dismissalDate", row: "dismissalDate (update)")
        }

        guard let activityId else { return nil }
        var u = OpenPushUpdate(appId: appId, activityId: activityId, event: event.rawValue)
        u.name = Self.name(MessageText("BuzzKit \(event.rawValue) \(activityId)").text + (to.map { MessageText(" for \($0)").text } ?? ""))
        note("name", .synthesized, MessageText("BuzzKit has no message name and OpenPush requires one: \"\(u.name ?? "")\" is sent").text)
        u.eventUpdates = state
        let (headings, contents) = alert.languageMaps(findings: &findings)
        u.headings = headings
        u.contents = contents
        u.staleDate = stale
        u.dismissalDate = dismissal
        u.priority = priority
        u.iosSound = alert.sound
        if let sound = alert.sound, !OpenPushRules.isBlank(sound), headings == nil, contents == nil {
            note("alert.sound", .caveat,
                 MessageText("OpenPush plays a Live Activity sound only with alert text, and this \(event.rawValue) has no alert.title or alert.body, so \"\(sound)\" will not play; add alert.title or alert.body to hear it").text)
        }
        return OpenPushRequest(.update(u))
    }
}
