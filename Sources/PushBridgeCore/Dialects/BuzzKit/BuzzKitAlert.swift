/// BuzzKit's `alert {title, body, sound}` and how it becomes OpenPush's `headings.en`,
/// `contents.en` and `ios_sound`.
struct BuzzKitAlert {
    /// `alert.title`, when present and non-blank.
    var title: String?
    /// `alert.body`, when present and non-blank.
    var body: String?
    /// `alert.sound`.
    var sound: String?
    /// True when the body had an `alert` object at all.
    var present: Bool

    /// Reads `alert` from the root reader, accounting for its unknown keys. A blank title or
    /// body counts as missing (OpenPush requires a non-blank `en`), with a finding.
    static func read(_ root: inout FieldReader, findings: inout [Finding]) -> BuzzKitAlert {
        guard let object = root.object(.alert) else { return BuzzKitAlert(present: false) }
        var r = FieldReader(object, path: "alert")
        var alert = BuzzKitAlert(present: true)
        alert.title = nonBlank(r.string(.title), field: "alert.title", findings: &findings)
        alert.body = nonBlank(r.string(.body), field: "alert.body", findings: &findings)
        alert.sound = r.string(.sound)
        root.errors += r.errors
        r.consumeNulls()
        FieldAccounting.dropUnread(r, table: BuzzKitFieldMappings.table, route: .send, tablePrefix: "alert", dialect: "BuzzKit", into: &findings)
        return alert
    }

    private static func nonBlank(_ s: String?, field: String, findings: inout [Finding]) -> String? {
        guard let s else { return nil }
        if OpenPushRules.isBlank(s) {
            findings.append(Finding(field: field, kind: .dropped,
                                    message: "is blank, and OpenPush requires a non-blank en, so it is treated as missing"))
            return nil
        }
        return s
    }

    /// `(headings, contents)` for an update or end: exactly the text the caller sent, since
    /// OpenPush's update takes headings and contents each on its own.
    func languageMaps(findings: inout [Finding]) -> (JSONObject?, JSONObject?) {
        let heading = title.map { escape($0, field: "alert.title", findings: &findings) }
        let content = body.map { escape($0, field: "alert.body", findings: &findings) }
        return (heading.map { ["en": .string($0)] }, content.map { ["en": .string($0)] })
    }

    /// `(headings, contents)` for a start, which OpenPush requires: from the caller's text, or
    /// made from the activity type when there is none.
    func startLanguageMaps(activityType: String, findings: inout [Finding]) -> (JSONObject, JSONObject) {
        guard title != nil || body != nil else {
            let heading = activityType
            let content = MessageText("\(activityType) started").text
            let what = present ? "alert has no title or body" : "no alert was sent"
            findings.append(Finding(field: "alert", kind: .synthesized, severity: .warning,
                                    message: MessageText("\(what), but OpenPush requires alert text on a start: devices will show \"\(heading)\" / \"\(content)\". Send alert {title, body} from the backend to control it").text))
            return (["en": .string(escaped(heading))], ["en": .string(escaped(content))])
        }
        return complete(findings: &findings)
    }

    /// Both texts of a start, the missing one made from the other.
    private func complete(findings: inout [Finding]) -> (JSONObject, JSONObject) {
        var heading = title.map { escape($0, field: "alert.title", findings: &findings) }
        var content = body.map { escape($0, field: "alert.body", findings: &findings) }
        if heading == nil, let content {
            heading = content
            findings.append(Finding(field: "alert.title", kind: .synthesized,
                                    message: "missing, and OpenPush requires headings.en on a start, so alert.body is used as the title too"))
        }
        if content == nil, let heading {
            content = heading
            findings.append(Finding(field: "alert.body", kind: .synthesized,
                                    message: "missing, and OpenPush requires contents.en on a start, so alert.title is used as the body too"))
        }
        return (["en": .string(heading ?? "")], ["en": .string(content ?? "")])
    }

    private func escape(_ text: String, field: String, findings: inout [Finding]) -> String {
        guard let e = LiquidEscaping.escape(text) else { return text }
        findings.append(Finding(field: field, kind: .escaped,
                                message: "contains {{ or {%, which OpenPush renders through Liquid; escaped so devices show the text literally"))
        return e
    }

    private func escaped(_ text: String) -> String { LiquidEscaping.escape(text) ?? text }
}
