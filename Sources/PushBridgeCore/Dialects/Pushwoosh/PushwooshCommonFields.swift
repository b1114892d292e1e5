/// The fields startLiveActivity and updateLiveActivity read the same way: priority, relevance,
/// dates, sound and the `live_activity.title` drop.
enum PushwooshCommonFields {
    /// `apns_priority` → an explicit `priority`: 10 → 10, 5 → 5, any other value of any type
    /// → 5 (coerced: "any other value is treated as 5, without a validation error"), absent → 5
    /// (defaulted, Pushwoosh's default). `event` names what OpenPush would have defaulted to.
    static func priority(_ r: inout FieldReader, event: String, scope: inout PushwooshScope) -> Int64 {
        guard let v = r.raw(.apns_priority) else {
            let openPushDefault = event == "update" ? "5 as well" : "10"
            scope.note(scope.field("apns_priority"), .defaulted, MessageText("apns_priority is absent: sent priority 5, Pushwoosh's default for every Live Activity push (OpenPush would default \(event == "start" ? "a" : "an") \(event) to \(openPushDefault)); set apns_priority: 10 for high-priority delivery").text)
            return 5
        }
        if let i = v.numberValue?.int64Value, i == 10 || i == 5 { return i }
        let shown = v.stringValue.map { MessageText("\"\($0)\" (a string)").text } ?? JSONWriter.string(v)
        let hint = v.stringValue.flatMap { Int64($0) } == 10 ? "; send the number 10 for high priority" : ""
        scope.note(scope.field("apns_priority"), .coerced, MessageText("apns_priority \(shown) is neither the number 5 nor 10: Pushwoosh treats any other value as 5 without a validation error, so priority 5 was sent (OpenPush would reject it with a 400)\(hint)").text)
        return 5
    }

    /// `live_activity.relevance-score` → `ios_relevance_score` = score/100 clamped to [0, 1].
    static func relevance(_ la: inout FieldReader, scope: inout PushwooshScope) -> JSONNumber? {
        guard let n = la.number("relevance-score") else { return nil }
        let raw = n.doubleValue
        let scaled = min(1, max(0, raw / 100))
        let out = JSONNumber(scaled)
        var why = MessageText("Pushwoosh relevance-score \(n.literal) (1 and up, ≤ 100 recommended) was rescaled to OpenPush's [0, 1] range as \(out.literal)").text
        if raw > 100 { why += " (clamped: scores above 100 all become 1, so they no longer outrank each other)" }
        if raw < 1 { why += " (below Pushwoosh's minimum of 1)" }
        scope.note(scope.liveField("relevance-score"), .rescaled, why)
        return out
    }

    /// A `live_activity` date in seconds (milliseconds converted), or nil when absent.
    static func date(_ key: FieldKey, _ la: inout FieldReader, scope: inout PushwooshScope) -> Int64? {
        guard let v = la.integer(key) else { return nil }
        return TimestampConversion.seconds(v, field: scope.liveField(key.name), findings: &scope.findings)
    }

    /// `ios_sound` → `ios_sound`; a caveat when no alert text accompanies it. `subtitle` is
    /// true when the notification has a non-blank subtitle, which makes Pushwoosh show an alert
    /// (and play the sound) but has no OpenPush field.
    static func sound(_ r: inout FieldReader, hasAlert: Bool, subtitle: Bool = false, scope: inout PushwooshScope) -> String? {
        guard let s = r.string(.ios_sound) else { return nil }
        let f = scope.field("ios_sound")
        if OpenPushRules.isBlank(s) {
            scope.note(f, .dropped, "ios_sound is blank, so there is no sound to play; it is not sent")
            return nil
        }
        if !hasAlert {
            let pushwoosh = subtitle
                ? "Pushwoosh would play it, because subtitle sets off the alert, but OpenPush has no subtitle, so this update arrives without an alert and no sound will play"
                : "this notification sends no content or title, so no sound will play (as with Pushwoosh)"
            scope.note(f, .caveat, MessageText("ios_sound only plays with an alert, and \(pushwoosh); add content or title to hear it").text)
        }
        return s
    }

    /// Escapes Liquid markup in alert text, with a finding.
    static func escaped(_ text: String, key: String, scope: inout PushwooshScope) -> String {
        guard hasLiquidMarkup(text), let e = LiquidEscaping.escape(text) else { return text }
        scope.note(scope.field(key), .escaped, "contains {{ or {%, which OpenPush would render as Liquid; escaped so it arrives literally as Pushwoosh shows it")
        return e
    }

    /// True when the text holds `{{` or `{%` (a byte scan: most text has neither).
    static func hasLiquidMarkup(_ text: String) -> Bool {
        var previousBrace = false
        for b in text.utf8 {
            if previousBrace, b == UInt8(ascii: "{") || b == UInt8(ascii: "%") { return true }
            previousBrace = b == UInt8(ascii: "{")
        }
        return false
    }

    /// A synthesized `name` of at most 128 characters, with an info finding.
    static func name(_ method: String, activityId: String, scope: inout PushwooshScope) -> String {
        let full = MessageText("Pushwoosh \(method) \(activityId)").text
        // A text has at most as many characters as UTF-8 bytes: count them only when it may be over.
        let cut = full.utf8.count > OpenPushLimits.nameMaxLength && full.count > OpenPushLimits.nameMaxLength
        let name = cut ? String(full.prefix(OpenPushLimits.nameMaxLength)) : full
        let note = cut ? MessageText(" (cut to OpenPush's \(OpenPushLimits.nameMaxLength)-character limit)").text : ""
        scope.note(scope.field("name"), .synthesized, MessageText("OpenPush requires a message name and Pushwoosh has none: sent name \"\(name)\"\(note)").text, severity: .info)
        return name
    }

    /// A required string that must be non-blank and free of '/' (activity ids).
    static func activityId(_ r: inout FieldReader, scope: inout PushwooshScope) -> String? {
        guard let id = r.string(.live_activity_id, required: true) else { return nil }
        if OpenPushRules.isBlank(id) { scope.reject(scope.field("live_activity_id"), "must be non-blank"); return nil }
        if id.utf8.contains(UInt8(ascii: "/")) { scope.reject(scope.field("live_activity_id"), "must not contain '/' (OpenPush puts the activity id in a URL path)"); return nil }
        if let problem = OpenPushPath.problem(segment: id) { scope.reject(scope.field("live_activity_id"), problem); return nil }
        return id
    }

    /// `live_activity.content-state`: a required non-empty object.
    static func contentState(_ la: inout FieldReader, scope: inout PushwooshScope) -> JSONObject? {
        guard let o = la.object("content-state", required: true) else { return nil }
        if o.isEmpty { scope.reject(scope.liveField("content-state"), "must be a non-empty object (OpenPush and ActivityKit require content-state)"); return nil }
        return o
    }
}
