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
        guard let object = root.object("alert") else { return BuzzKitAlert(present: false) }
        var r = FieldReader(object, path: "alert")
        var alert = BuzzKitAlert(present: true)
        alert.title = nonBlank(r.string("title"), field: "alert.title", findings: &findings)
        alert.body = nonBlank(r.string("body"), field: "alert.body", findings: &findings)
        alert.sound = r.string("sound")
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

    /// `(headings, contents)` for an update or end: only when the caller sent text; a missing
    /// one is made from the other.
    func languageMaps(findings: inout [Finding]) -> (JSONObject?, JSONObject?) {
        guard title != nil || body != nil else { return (nil, nil) }
        return complete(findings: &findings)
    }

    /// `(headings, contents)` for a start, which OpenPush requires: from the caller's text, or
    /// made from the activity type when there is none.
    func startLanguageMaps(activityType: String, findings: inout [Finding]) -> (JSONObject, JSONObject) {
        guard title != nil || body != nil else {
            let heading = activityType
            let content = "\(activityType) started"
            let what = present ? "alert has no title or body" : "no alert was sent"
            findings.append(Finding(field: "alert", kind: .synthesized, severity: .warning,
                                    message: "\(what), but OpenPush requires alert text on a start: devices will show \"\(heading)\" / \"\(content)\". Send alert {title, body} from the backend to control it"))
            return (["en": .string(escaped(heading))], ["en": .string(escaped(content))])
        }
        return complete(findings: &findings)
    }

    private func complete(findings: inout [Finding]) -> (JSONObject, JSONObject) {
        var heading = title.map { escape($0, field: "alert.title", findings: &findings) }
        var content = body.map { escape($0, field: "alert.body", findings: &findings) }
        if heading == nil, let content {
            heading = content
            findings.append(Finding(field: "alert.title", kind: .synthesized,
                                    message: "missing, and OpenPush requires headings.en whenever alert text is sent, so alert.body is used as the title too"))
        }
        if content == nil, let heading {
            content = heading
            findings.append(Finding(field: "alert.body", kind: .synthesized,
                                    message: "missing, and OpenPush requires contents.en whenever alert text is sent, so alert.title is used as the body too"))
        }
        let h = heading ?? ""
        let c = content ?? ""
        capCaveat(h, cap: OpenPushLimits.alertTitleCap, field: "alert.title", findings: &findings)
        capCaveat(c, cap: OpenPushLimits.alertBodyCap, field: "alert.body", findings: &findings)
        return (["en": .string(h)], ["en": .string(c)])
    }

    private func escape(_ text: String, field: String, findings: inout [Finding]) -> String {
        guard let e = LiquidEscaping.escape(text) else { return text }
        findings.append(Finding(field: field, kind: .escaped,
                                message: "contains {{ or {%, which OpenPush renders through Liquid; escaped so devices show the text literally"))
        return e
    }

    private func escaped(_ text: String) -> String { LiquidEscaping.escape(text) ?? text }

    private func capCaveat(_ text: String, cap: Int, field: String, findings: inout [Finding]) {
        guard text.count > cap else { return }
        findings.append(Finding(field: field, kind: .caveat,
                                message: "is \(text.count) characters as sent to OpenPush, over its Liquid cap of \(cap): OpenPush truncates it. Shorten the text"))
    }
}
