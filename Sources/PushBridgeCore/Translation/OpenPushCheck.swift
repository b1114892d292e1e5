/// The one check every translation goes through after its dialect and before anything is sent,
/// whatever the dialect: each OpenPush request must pass OpenPush's own rules, and one request
/// that does not rejects the whole translation (nothing is sent, so a caller never gets half a
/// request). A translation that passes gets a caveat for each thing OpenPush will do to it
/// without saying so: cut alert text at its Liquid caps, and reach at most 2,000 devices.
/// Every finding names the caller's field, through the request's `sourceFields` or the
/// dialect's `callerField`.
public enum OpenPushCheck {
    /// The translation, rejected when a request breaks a rule, otherwise with the caveats added.
    /// `callerField(openPushField, requestIndex)` names the caller's field of an OpenPush field.
    /// The translation is taken, not copied, and each request is read in place (issue 31: a
    /// request copied is every one of its strings and objects retained and released).
    public static func check(_ translation: consuming Translation, callerField: (String, Int) -> String) -> Translation {
        guard translation.error == nil else { return translation }
        var t = translation
        let requests = t.requests
        var errors: [TranslationError] = []
        for i in requests.indices {
            for v in requests[i].violations {
                let f = requests[i].callerField(v.field) ?? callerField(v.field, i)
                errors.append(TranslationError(field: f, rule: v.rule, message: MessageText("\(f): \(v.rule) (OpenPush would reject this request)").text))
            }
        }
        if let error = TranslationError.combine(errors) {
            let whole = t.requests.count > 1 ? MessageText("; the whole request is rejected, none of its \(t.requests.count) notifications is sent").text : ""
            t.findings += errors.map { Finding(field: $0.field, kind: .rejected, message: $0.message + whole) }
            t.requests = []
            t.error = TranslationError(field: error.field, rule: error.rule, message: error.message + whole)
            return t
        }
        for i in requests.indices {
            let name: (String) -> String = { requests[i].callerField($0) ?? callerField($0, i) }
            t.findings.append(contentsOf: alertCaps(requests[i], callerField: name))
            fanOut(requests[i], callerField: name, into: &t.findings)
        }
        return t
    }

    /// OpenPush renders alert title and body through Liquid and cuts them at 512 and 2,048
    /// characters. The length that counts is the rendered one: PushBridge's own escapes
    /// (`{{ '{{' }}`) render back to the two characters they stand for.
    static func alertCaps(_ request: OpenPushRequest, callerField: (String) -> String) -> [Finding] {
        var out: [Finding] = []
        let maps = request.alertMaps
        alertCaps(maps.headings, key: "headings", cap: OpenPushLimits.alertTitleCap, what: "alert title", callerField: callerField, into: &out)
        alertCaps(maps.contents, key: "contents", cap: OpenPushLimits.alertBodyCap, what: "alert body", callerField: callerField, into: &out)
        return out
    }

    /// The caveats of one language map (`headings` or `contents`) against its cap.
    private static func alertCaps(_ map: JSONObject?, key: String, cap: Int, what: String, callerField: (String) -> String, into out: inout [Finding]) {
        guard let map else { return }
        for m in map.members {
            // A rendered text has at most as many characters as its UTF-8 bytes (a character
            // is one byte or more, an escape two characters for ten bytes): a text of at most
            // `cap` bytes is never cut, and is not measured (issue 31, branch `translate6`).
            guard let text = m.value.stringValue, text.utf8.count > cap else { continue }
            let rendered = LiquidEscaping.rendered(text)
            guard rendered.length > cap else { continue }
            let measure = rendered.hasTemplateTags
                ? MessageText("is \(rendered.length) characters before Liquid fills in its tags, over OpenPush's cap of \(cap) for the \(what): unless the values make it shorter, OpenPush cuts it to \(cap)").text
                : MessageText("is \(rendered.length) characters as OpenPush renders it, over its cap of \(cap) for the \(what): OpenPush cuts it to \(cap) characters").text
            out.append(Finding(field: callerField(MessageText("\(key).\(m.key)").text), kind: .caveat, message: MessageText("\(measure). Shorten the text to keep its end").text))
        }
    }

    /// OpenPush reaches at most 2,000 devices per send and never says when it cut: every start
    /// aimed at a segment or filter may lose devices, and a list of more ids certainly does.
    static func fanOut(_ request: OpenPushRequest, callerField: (String) -> String) -> [Finding] {
        var out: [Finding] = []
        fanOut(request, callerField: callerField, into: &out)
        return out
    }

    /// ``fanOut(_:callerField:)``'s caveat appended to `out` (no array of its own for the one
    /// finding: issue 31, branch `translate6`).
    static func fanOut(_ request: OpenPushRequest, callerField: (String) -> String, into out: inout [Finding]) {
        guard case .start(let s) = request.payload else { return }
        let cap = OpenPushLimits.fanOutCap
        if let segments = s.includedSegments {
            // One sentence per count, the names written into it: no `String` made for the
            // "segment … holds" piece alone (issue 31, branch `lazyparse`). The same segments
            // give the same sentence on every start: it is made once (issue 31, branch `translate6`),
            // and for one segment found by its name without building its bytes (branch `translate7`).
            let message = segments.count == 1
                ? SegmentSentences.text(.fanOutCaveat, mapConfigured: false, provider: "", name: segments[0], id: "", number: cap) {
                    MessageText("OpenPush reaches at most \(cap) devices per send and does not report the cut: if segment \(quoted: segments, separator: ", ") holds more devices with a push-to-start token, only the first \(cap) get this start. Split larger audiences into batches (OpenPush allows 60 sends a minute)").text
                }
                : RecurringText("OpenPush reaches at most \(cap) devices per send and does not report the cut: if segments \(quoted: segments, separator: ", ") together hold more devices with a push-to-start token, only the first \(cap) get this start. Split larger audiences into batches (OpenPush allows 60 sends a minute)").text
            out.appendGrowingOnce(Finding(field: callerField("included_segments"), kind: .caveat, message: message))
            return
        }
        if s.filters != nil {
            out.appendGrowingOnce(Finding(field: callerField("filters"), kind: .caveat,
                               message: RecurringText("OpenPush reaches at most \(cap) devices per send and does not report the cut: if these filters match more devices with a push-to-start token, only the first \(cap) get this start. Split larger audiences into batches (OpenPush allows 60 sends a minute)").text))
            return
        }
        let ids = (s.includeSubscriptionIds?.count ?? 0) + (s.includeAliases?.members.reduce(0) { $0 + ($1.value.arrayValue?.count ?? 1) } ?? 0)
        guard ids > cap else { return }
        let field = s.includeSubscriptionIds != nil ? "include_subscription_ids" : "include_aliases"
        out.appendGrowingOnce(Finding(field: callerField(field), kind: .caveat,
                           message: RecurringText("lists \(ids) target ids, but OpenPush reaches at most \(cap) devices per send and silently drops the rest: split them into sends of at most \(cap)").text))
    }
}
