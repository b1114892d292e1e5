/// The `{"request": {application, auth, notifications: [...]}}` envelope, checked and read.
/// Paths inside `request` are written without the `request.` prefix (`application`,
/// `notifications[0].content`), as Pushwoosh's own tables name them; a key beside `request`
/// at the top level is reported under its own name with a message saying where it was.
struct PushwooshEnvelope {
    /// The Pushwoosh application code.
    var application: String
    /// The notifications, each an object.
    var notifications: [JSONObject]

    /// Reads the envelope. Errors never include the value of `auth`, which is required unless
    /// `authOptional` (the caller presented its credential in a header instead).
    static func read(_ body: ParsedBody, route: RouteKind, authOptional: Bool = false, findings: inout [Finding]) -> Result<PushwooshEnvelope, PushwooshEnvelopeErrors> {
        let root: JSONObject
        switch BodyDecoding.object(body) {
        case .success(let o): root = o
        case .failure(let e): return .failure(PushwooshEnvelopeErrors(errors: [e]))
        }
        var top = FieldReader(root)
        let request = top.object(.request, required: true)
        for m in top.unread {
            findings.append(Finding(field: m.key, kind: .dropped,
                                    message: "top-level key outside the \"request\" envelope; Pushwoosh reads only \"request\", so it is not forwarded"))
        }
        guard let request else { return .failure(PushwooshEnvelopeErrors(errors: top.errors)) }

        var r = FieldReader(request)
        let application = r.string(.application, required: true)
        let auth = r.string(.auth, required: !authOptional)
        let list = r.array(.notifications, required: true)
        var errors = r.errors
        if let application, OpenPushRules.isBlank(application) {
            errors.append(TranslationError(field: "application", rule: "must be a non-blank Pushwoosh application code"))
        }
        if let auth, !authOptional, OpenPushRules.isBlank(auth) {
            errors.append(TranslationError(field: "auth", rule: "must be a non-blank API access token"))
        }
        var notifications: [JSONObject] = []
        if let list {
            if list.isEmpty { errors.append(TranslationError(field: "notifications", rule: "must list at least one notification")) }
            for (i, v) in list.enumerated() {
                if let o = v.objectValue { notifications.append(o) }
                else { errors.append(TranslationError(field: MessageText("notifications[\(i)]").text, rule: MessageText("must be an object, got \(v.typeName)").text)) }
            }
        }
        FieldAccounting.dropUnread(r, table: PushwooshFieldMappings.table, route: route, tablePrefix: "", dialect: "Pushwoosh", into: &findings)
        if !errors.isEmpty { return .failure(PushwooshEnvelopeErrors(errors: errors)) }
        guard let application else { return .failure(PushwooshEnvelopeErrors(errors: [TranslationError(field: "application", rule: "is required")])) }
        return .success(PushwooshEnvelope(application: application, notifications: notifications))
    }
}

/// Every rule the envelope breaks.
struct PushwooshEnvelopeErrors: Error {
    /// The broken rules, in reading order.
    var errors: [TranslationError]
}
