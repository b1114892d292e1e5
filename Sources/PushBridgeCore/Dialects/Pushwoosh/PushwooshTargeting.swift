/// Start targeting: exactly one OpenPush method from `filter`/`filter_code` (segments),
/// `devices` (push tokens) or `users` (external ids). Two methods, none, an unmapped filter
/// or more than 20,000 ids reject the notification (OpenPush's fan-out caveats are added by
/// `OpenPushCheck`, which sees every dialect's starts).
enum PushwooshTargeting {
    /// The keys that name a target, in the order their conflicts are reported.
    static let targetKeys = ["filter", "filter_code", "devices", "users"]

    /// Reads the targeting keys into `start`.
    static func apply(_ r: inout FieldReader, to start: inout OpenPushStart, context: TranslationContext, scope: inout PushwooshScope) {
        let present = targetKeys.filter { r.has($0) }
        let errorsBefore = r.errors.count
        let filter = r.string(.filter), filterCode = r.string(.filter_code)
        let devices = r.stringArray(.devices), users = r.stringArray(.users)
        // A wrongly typed target is reported by the reader; do not stack a second error on it.
        guard r.errors.count == errorsBefore else { return }
        guard present.count == 1 else {
            if present.isEmpty {
                scope.reject(scope.field("filter"), "a target is required: give filter or devices (or the older filter_code or users); OpenPush needs exactly one targeting method")
            } else {
                let list = present.joined(separator: " and ")
                scope.reject(scope.field(present[1]), MessageText("\(list) were given together, but OpenPush accepts exactly one targeting method per start and PushBridge will not guess; send one notification per method").text)
            }
            return
        }
        if let name = filter ?? filterCode {
            let f = scope.field(present[0])
            segments(name, field: f, key: present[0], into: &start, context: context, scope: &scope)
            scope.sourceFields["included_segments"] = f
        } else if let devices {
            guard checkIds(devices, key: "devices", scope: &scope) else { return }
            scope.sourceFields[context.deviceTargeting == .subscriptionIds ? "include_subscription_ids" : "include_aliases"] = scope.field("devices")
            switch context.deviceTargeting {
            case .subscriptionIds:
                start.includeSubscriptionIds = devices
                if context.deviceTargetingConfigured {
                    scope.note(scope.field("devices"), .renamed, "push tokens sent as include_subscription_ids, as configured")
                } else {
                    scope.note(scope.field("devices"), .converted, "push tokens were forwarded as include_subscription_ids, which only reaches devices whose OpenPush subscription id is the token; if your migration stored tokens under an alias instead, configure the app's device targeting (alias:<label>)")
                }
            case .alias(let label):
                start.includeAliases = [label: .array(devices.map(JSONValue.string))]
                scope.note(scope.field("devices"), .renamed, MessageText("push tokens sent as include_aliases.\(label), as configured").text)
            }
        } else if let users {
            guard checkIds(users, key: "users", scope: &scope) else { return }
            scope.sourceFields["include_aliases"] = scope.field("users")
            start.includeAliases = ["external_id": .array(users.map(JSONValue.string))]
            scope.note(scope.field("users"), .renamed, "user ids sent as include_aliases.external_id, which reaches devices whose OpenPush external id is the Pushwoosh user id")
        }
    }

    /// `filter` or `filter_code` (`key`, whose caller path is `f`) through the segment map.
    private static func segments(_ name: String, field f: String, key: String, into start: inout OpenPushStart, context: TranslationContext, scope: inout PushwooshScope) {
        if OpenPushRules.isBlank(name) { scope.reject(f, "must name a Pushwoosh filter"); return }
        let provider = key == "filter_code" ? "Pushwoosh filter_code (the older name of filter)" : "Pushwoosh filter"
        if let id = SegmentMapping.map(name, field: f, provider: provider, context: context, findings: &scope.findings, errors: &scope.errors) {
            start.includedSegments = [id]
        }
    }

    private static func checkIds(_ ids: [String], key: String, scope: inout PushwooshScope) -> Bool {
        let f = scope.field(key)
        if ids.isEmpty { scope.reject(f, "must list at least one id"); return false }
        if let i = ids.firstIndex(where: { OpenPushRules.isBlank($0) }) { scope.reject(MessageText("\(f)[\(i)]").text, "must be non-blank"); return false }
        if ids.count > OpenPushLimits.maxTargetIds {
            scope.reject(f, MessageText("lists \(ids.count) ids; OpenPush accepts at most \(OpenPushLimits.maxTargetIds) per request — split them across notifications").text)
            return false
        }
        return true
    }
}
