/// The alert text of a notification: `content` → `contents.en`, `title` → `headings.en`.
struct PushwooshAlert {
    /// `headings`, when an alert is sent.
    var headings: JSONObject?
    /// `contents`, when an alert is sent.
    var contents: JSONObject?
    /// True when the notification sends an alert.
    var isPresent: Bool { contents != nil || headings != nil }

    /// Reads `content` and `title`. Liquid markup is escaped. `required` (start) rejects a
    /// notification with neither and, because OpenPush requires both `en` texts on a start,
    /// makes the missing one from the other; on update, where OpenPush takes each on its own,
    /// exactly what the caller sent is sent, neither means a silent update, and a blank one is
    /// dropped because OpenPush rejects a blank `en`.
    static func read(_ r: inout FieldReader, required: Bool, scope: inout PushwooshScope) -> PushwooshAlert {
        let content = r.string(.content)
        let title = r.string(.title)
        // A wrongly typed text is reported by the reader; synthesizing around it would mislead.
        if (r.has("content") && content == nil) || (r.has("title") && title == nil) { return PushwooshAlert() }
        let c = OpenPushRules.isBlank(content) ? nil : content.map { PushwooshCommonFields.escaped($0, key: "content", scope: &scope) }
        let t = OpenPushRules.isBlank(title) ? nil : title.map { PushwooshCommonFields.escaped($0, key: "title", scope: &scope) }
        // The fields' paths are made only for a finding that names them.
        guard required else {
            for (value, sent, key) in [(content, c, "content"), (title, t, "title")] where value != nil && sent == nil {
                let rest = c == nil && t == nil ? " and this update carries no alert" : ""
                scope.note(scope.field(key), .dropped, MessageText("is blank; OpenPush rejects blank alert text, so it is not sent\(rest)").text)
            }
            return PushwooshAlert(headings: t.map { ["en": .string($0)] }, contents: c.map { ["en": .string($0)] })
        }
        guard let text = c ?? t else {
            scope.reject(scope.field("content"), "content or title must be non-blank: Pushwoosh rejects a start with both empty, and OpenPush requires alert text")
            return PushwooshAlert()
        }
        if c == nil {
            scope.note(scope.field("content"), .synthesized, MessageText("content is \(content == nil ? "absent" : "blank"); OpenPush requires contents.en alongside headings.en on a start, so the title text was sent as the alert body too (the alert shows it twice)").text)
        }
        if t == nil {
            scope.note(scope.field("title"), .synthesized, MessageText("title is \(title == nil ? "absent" : "blank"); OpenPush requires headings.en alongside contents.en on a start, so the content text was sent as the alert title too (the alert shows it twice)").text)
        }
        return PushwooshAlert(headings: ["en": .string(t ?? text)], contents: ["en": .string(c ?? text)])
    }
}
