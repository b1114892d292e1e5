/// The alert text of a notification: `content` → `contents.en`, `title` → `headings.en`.
struct PushwooshAlert {
    /// `headings`, when an alert is sent.
    var headings: JSONObject?
    /// `contents`, when an alert is sent.
    var contents: JSONObject?
    /// True when the notification sends an alert.
    var isPresent: Bool { contents != nil }

    /// Reads `content` and `title`. Liquid markup is escaped; when only one is non-blank the
    /// other is synthesized from it (OpenPush needs both `en` texts on a start). `required`
    /// (start) rejects a notification with neither; on update neither means a silent update,
    /// and a blank one is dropped because OpenPush rejects a blank `en`.
    static func read(_ r: inout FieldReader, required: Bool, scope: inout PushwooshScope) -> PushwooshAlert {
        let content = r.string("content")
        let title = r.string("title")
        // A wrongly typed text is reported by the reader; synthesizing around it would mislead.
        if (r.has("content") && content == nil) || (r.has("title") && title == nil) { return PushwooshAlert() }
        let c = OpenPushRules.isBlank(content) ? nil : content.map { PushwooshCommonFields.escaped($0, key: "content", scope: &scope) }
        let t = OpenPushRules.isBlank(title) ? nil : title.map { PushwooshCommonFields.escaped($0, key: "title", scope: &scope) }
        guard let text = c ?? t else {
            let cf = scope.field("content"), tf = scope.field("title")
            if required {
                scope.reject(cf, "content or title must be non-blank: Pushwoosh rejects a start with both empty, and OpenPush requires alert text")
            } else {
                for (value, f) in [(content, cf), (title, tf)] where value != nil {
                    scope.note(f, .dropped, "is blank; OpenPush rejects blank alert text, so it is not sent and this update carries no alert")
                }
            }
            return PushwooshAlert()
        }
        if c == nil {
            scope.note(scope.field("content"), .synthesized, "content is \(content == nil ? "absent" : "blank"); OpenPush requires contents.en alongside headings.en, so the title text was sent as the alert body too (the alert shows it twice)")
        }
        if t == nil {
            scope.note(scope.field("title"), .synthesized, "title is \(title == nil ? "absent" : "blank"); OpenPush requires headings.en alongside contents.en, so the content text was sent as the alert title too (the alert shows it twice)")
        }
        return PushwooshAlert(headings: ["en": .string(t ?? text)], contents: ["en": .string(c ?? text)])
    }
}
