/// `POST /apps/{app_id}/live_activities/{activity_id}/notifications` → an OpenPush update or end.
enum OneSignalUpdateTranslation {
    static func translate(appId: String, activityId: String, body: JSONObject, context: TranslationContext) -> Translation {
        var findings: [Finding] = []
        var r = FieldReader(body)
        var u = OpenPushUpdate(appId: context.openPushApp(for: appId), activityId: activityId)
        u.event = r.string(.event, required: true)
        if let e = u.event, e != "update", e != "end" {
            r.errors.append(TranslationError(field: "event", rule: MessageText("must be \"update\" or \"end\", got \"\(e)\"").text))
        }
        u.eventUpdates = r.object(.event_updates, required: true)
        u.name = r.string(.name, required: true)
        let shared = OneSignalSharedFields.read(&r, event: u.event, findings: &findings)
        u.contents = shared.contents
        u.headings = shared.headings
        u.staleDate = shared.staleDate
        u.priority = shared.priority
        u.relevanceScore = shared.relevanceScore
        u.iosSound = shared.iosSound
        if let d = r.integer(.dismissal_date) {
            let seconds = TimestampConversion.seconds(d, field: "dismissal_date", findings: &findings)
            if u.event == "end" {
                u.dismissalDate = seconds
            } else {
                findings.append(Finding(field: "dismissal_date", kind: .dropped, message: OneSignalFieldMappings.update.row(.update, "dismissal_date")!.note))
            }
        }
        FieldAccounting.dropUnread(r, table: OneSignalFieldMappings.table, route: .update, tablePrefix: "", dialect: "OneSignal",
                                   unknownMessage: OneSignalFieldMappings.dropMessage(forUnknown:), into: &findings)
        if let error = r.combinedError {
            return Translation(dialect: .onesignal, route: .update, sourceApp: appId,
                               findings: findings, error: error)
        }
        return Translation(dialect: .onesignal, route: .update, sourceApp: appId, requests: [OpenPushRequest(.update(u))], findings: findings)
    }
}
