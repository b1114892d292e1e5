/// `POST /apps/{app_id}/activities/activity/{activity_type}` → an OpenPush start.
enum OneSignalStartTranslation {
    static func translate(appId: String, activityType: String, body: JSONObject, context: TranslationContext) -> Translation {
        var findings: [Finding] = []
        var r = FieldReader(body)
        var s = OpenPushStart(appId: context.openPushApp(for: appId), activityType: activityType)
        if let event = r.string(.event), event != "start" {
            r.errors.append(TranslationError(field: "event", rule: MessageText("must be \"start\" on the start route, got \"\(event)\"").text))
        }
        s.activityId = r.string(.activity_id, required: true)
        s.eventAttributes = r.object(.event_attributes, required: true)
        s.eventUpdates = r.object(.event_updates, required: true)
        s.name = r.string(.name, required: true)
        let shared = OneSignalSharedFields.read(&r, event: "start", findings: &findings)
        s.contents = shared.contents
        s.headings = shared.headings
        if s.contents == nil, !r.errors.contains(where: { $0.field == "contents" }) {
            r.errors.append(TranslationError(field: "contents", rule: "is required on a start and must contain a non-blank en"))
        }
        if s.headings == nil, let en = s.contents?["en"]?.stringValue, !OpenPushRules.isBlank(en), !r.errors.contains(where: { $0.field == "headings" }) {
            s.headings = ["en": .string(en)]
            findings.append(Finding(field: "headings", kind: .synthesized,
                                    message: "OpenPush requires headings.en on a start; it was made from contents.en"))
        }
        s.staleDate = shared.staleDate
        s.priority = shared.priority
        s.relevanceScore = shared.relevanceScore
        s.iosSound = shared.iosSound
        s.idempotencyKey = r.string(.idempotency_key)
        var sourceFields: [String: String] = [:]
        if let external = r.string(.external_id) {
            if s.idempotencyKey == nil {
                s.idempotencyKey = external
                sourceFields["idempotency_key"] = "external_id"
                findings.append(Finding(field: "external_id", kind: .renamed, message: "external_id is the old name of idempotency_key; sent as idempotency_key"))
            } else {
                findings.append(Finding(field: "external_id", kind: .dropped, message: "idempotency_key is also present and wins; external_id (its old name) is not forwarded"))
            }
        }
        readTargeting(&r, into: &s, context: context, sourceFields: &sourceFields, findings: &findings)
        if r.has(.dismissal_date) {
            _ = r.raw(.dismissal_date)
            findings.append(Finding(field: "dismissal_date", kind: .dropped, message: OneSignalFieldMappings.start.row(.start, "dismissal_date")!.note))
        }
        FieldAccounting.dropUnread(r, table: OneSignalFieldMappings.table, route: .start, tablePrefix: "", dialect: "OneSignal",
                                   unknownMessage: OneSignalFieldMappings.dropMessage(forUnknown:), into: &findings)
        if let error = r.combinedError {
            return Translation(dialect: .onesignal, route: .start, sourceApp: appId, findings: findings, error: error)
        }
        return Translation(dialect: .onesignal, route: .start, sourceApp: appId, requests: [OpenPushRequest(.start(s), sourceFields: sourceFields)], findings: findings)
    }

    private static func readTargeting(_ r: inout FieldReader, into s: inout OpenPushStart, context: TranslationContext,
                                      sourceFields: inout [String: String], findings: inout [Finding]) {
        s.includeAliases = r.object(.include_aliases)
        s.includeSubscriptionIds = r.stringArray(.include_subscription_ids)
        s.includedSegments = segments(&r, .included, context: context, findings: &findings)
        s.excludedSegments = segments(&r, .excluded, context: context, findings: &findings)
        s.filters = r.array(.filters)
        if let players = r.stringArray(.include_player_ids) {
            if s.includeSubscriptionIds == nil {
                s.includeSubscriptionIds = players
                sourceFields["include_subscription_ids"] = "include_player_ids"
                findings.append(Finding(field: "include_player_ids", kind: .renamed, message: "include_player_ids is OneSignal's legacy name for subscription ids; sent as include_subscription_ids"))
            } else {
                r.errors.append(TranslationError(field: "include_player_ids", rule: "cannot be combined with include_subscription_ids"))
            }
        }
        if let externals = r.stringArray(.include_external_user_ids) {
            if s.includeAliases == nil {
                s.includeAliases = ["external_id": .array(externals.map(JSONValue.string))]
                sourceFields["include_aliases"] = "include_external_user_ids"
                findings.append(Finding(field: "include_external_user_ids", kind: .renamed, message: "include_external_user_ids is OneSignal's legacy external-id targeting; sent as include_aliases.external_id"))
            } else {
                r.errors.append(TranslationError(field: "include_external_user_ids", rule: "cannot be combined with include_aliases"))
            }
        }
    }

    /// A segment list: OneSignal segments are names, OpenPush's are ids, so each goes through
    /// the app's segment map (see `SegmentMapping`).
    private static func segments(_ r: inout FieldReader, _ list: OneSignalSegmentPaths, context: TranslationContext, findings: inout [Finding]) -> [String]? {
        guard let names = r.stringValues(list.key) else { return nil }
        var ids: [String] = []
        ids.reserveCapacity(names.count)
        for (i, value) in names.enumerated() {
            guard case .string(let name) = value else { continue }
            if let id = SegmentMapping.map(name, field: list.path(i), provider: "OneSignal segment", context: context, findings: &findings, errors: &r.errors) {
                ids.append(id)
            }
        }
        return ids
    }
}
