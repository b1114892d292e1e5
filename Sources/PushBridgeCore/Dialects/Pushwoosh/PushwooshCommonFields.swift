/// The fields startLiveActivity and updateLiveActivity read the same way: priority, relevance,
/// dates, sound and the `live_activity.title` drop.
enum PushwooshCommonFields {
    /// `apns_priority` → an explicit `priority`: 10 → 10, 5 → 5, any other number → 5 (coerced,
    /// as Pushwoosh reads it), absent → 5 (defaulted, Pushwoosh's default). `event` names what
    /// OpenPush would have defaulted to.
    static func priority(_ r: inout FieldReader, event: String, scope: inout PushwooshScope) -> Int64 {
        let present = r.has("apns_priority")
        guard let n = r.number("apns_priority") else {
            if present { return 5 }  // wrong type: the reader has recorded the error

            let openPushDefault = event == "update" ? "5 as well" : "10"
            scope.note(scope.field("apns_priority"), .defaulted, "apns_priority is absent: sent priority 5, Pushwoosh's default for every Live Activity push (OpenPush would default \(event == "start" ? "a" : "an") \(event) to \(openPushDefault)); set apns_priority: 10 for high-priority delivery")
            return 5
        }
        if let i = n.int64Value, i == 10 || i == 5 { return i }
        scope.note(scope.field("apns_priority"), .coerced, "apns_priority \(n.literal) is neither 5 nor 10: Pushwoosh treats it as 5, so priority 5 was sent (OpenPush would reject it with a 400)")
        return 5
    }

    /// `live_activity.relevance-score` → `ios_relevance_score` = score/100 clamped to [0, 1].
    static func relevance(_ la: inout FieldReader, scope: inout PushwooshScope) -> JSONNumber? {
        guard let n = la.number("relevance-score") else { return nil }
        let raw = n.doubleValue
        let scaled = min(1, max(0, raw / 100))
        let out = JSONNumber(scaled)
        var why = "Pushwoosh relevance-score \(n.literal) (1 and up, ≤ 100 recommended) was rescaled to OpenPush's [0, 1] range as \(out.literal)"
        if raw > 100 { why += " (clamped: scores above 100 all become 1, so they no longer outrank each other)" }
        if raw < 1 { why += " (below Pushwoosh's minimum of 1)" }
        scope.note(scope.liveField("relevance-score"), .rescaled, why)
        return out
    }

    /// A `live_activity` date in seconds (milliseconds converted), or nil when absent.
    static func date(_ key: String, _ la: inout FieldReader, scope: inout PushwooshScope) -> Int64? {
        guard let v = la.integer(key) else { return nil }
        return TimestampConversion.seconds(v, field: scope.liveField(key), findings: &scope.findings)
    }

    /// `ios_sound` → `ios_sound`; a caveat when no alert text accompanies it.
    static func sound(_ r: inout FieldReader, hasAlert: Bool, scope: inout PushwooshScope) -> String? {
        guard let s = r.string("ios_sound") else { return nil }
        let f = scope.field("ios_sound")
        if OpenPushRules.isBlank(s) {
            scope.note(f, .dropped, "ios_sound is blank, so there is no sound to play; it is not sent")
            return nil
        }
        if !hasAlert {
            scope.note(f, .caveat, "ios_sound only plays with an alert, and this notification sends no content or title, so no sound will play (as with Pushwoosh); add content or title to hear it")
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
        let full = "Pushwoosh \(method) \(activityId)"
        let cut = full.count > OpenPushLimits.nameMaxLength
        let name = cut ? String(full.prefix(OpenPushLimits.nameMaxLength)) : full
        let note = cut ? " (cut to OpenPush's \(OpenPushLimits.nameMaxLength)-character limit)" : ""
        scope.note(scope.prefix, .synthesized, "OpenPush requires a message name and Pushwoosh has none: sent name \"\(name)\"\(note)", severity: .info)
        return name
    }

    /// A required string that must be non-blank and free of '/' (activity ids).
    static func activityId(_ r: inout FieldReader, scope: inout PushwooshScope) -> String? {
        guard let id = r.string("live_activity_id", required: true) else { return nil }
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
