/// The Pushwoosh dialect: `/json/1.3/startLiveActivity` and `/json/1.3/updateLiveActivity`.
/// Each notification of the envelope becomes one OpenPush request, in order; when any
/// notification breaks a rule the whole request is rejected, so half a request is never sent.
public struct PushwooshDialect: Dialect {
    /// A dialect value.
    public init() {}

    /// `.pushwoosh`.
    public var name: DialectName { .pushwoosh }

    /// Every documented field of both routes (English and Spanish references, older variant).
    public var fieldMappings: [FieldMapping] { PushwooshFieldMappings.table }

    /// What Pushwoosh's answer holds and where it comes from.
    public var responseMappings: [FieldMapping] { PushwooshFieldMappings.responses }

    /// Translates a startLiveActivity or updateLiveActivity body already parsed.
    public func translateFields(route: InboundRoute, parsed body: ParsedBody, context: TranslationContext) -> Translation {
        var findings: [Finding] = []
        let envelope: PushwooshEnvelope
        switch PushwooshEnvelope.read(body, route: route.kind, authOptional: context.credentialInHeader, findings: &findings) {
        case .success(let e): envelope = e
        case .failure(let e): return rejected(route: route.kind, sourceApp: nil, findings: findings, errors: e.errors)
        }
        let appId = context.openPushApp(for: envelope.application)
        var requests: [OpenPushRequest] = []
        requests.reserveCapacity(envelope.notifications.count)
        var errors: [TranslationError] = []
        for (i, n) in envelope.notifications.enumerated() {
            var scope = PushwooshScope(route: route.kind, index: i)
            let request = route.kind == .start
                ? PushwooshStartTranslation.translate(n, appId: appId, context: context, scope: &scope)
                : PushwooshUpdateTranslation.translate(n, appId: appId, scope: &scope)
            findings.append(contentsOf: scope.findings)
            errors.append(contentsOf: scope.errors)
            if let request { requests.append(request) }
        }
        guard errors.isEmpty else { return rejected(route: route.kind, sourceApp: envelope.application, findings: findings, errors: errors) }
        return Translation(dialect: .pushwoosh, route: route.kind, sourceApp: envelope.application, requests: requests, findings: findings)
    }

    /// The Pushwoosh path of an OpenPush field of request `index` (notification `index`).
    public func callerField(_ openPushField: String, request index: Int, route: RouteKind) -> String {
        let n = MessageText("notifications[\(index)]").text
        switch openPushField {
        case "activity_id": return MessageText("\(n).live_activity_id").text
        case "event": return MessageText("\(n).live_activity.event").text
        case "activity_type": return MessageText("\(n).live_activity.attributes-type").text
        case "event_updates": return MessageText("\(n).live_activity.content-state").text
        case "event_attributes": return MessageText("\(n).live_activity.attributes").text
        case "stale_date": return MessageText("\(n).live_activity.stale-date").text
        case "dismissal_date": return MessageText("\(n).live_activity.dismissal-date").text
        case "ios_relevance_score": return MessageText("\(n).live_activity.relevance-score").text
        case "priority": return MessageText("\(n).apns_priority").text
        case "ios_sound", "sound": return MessageText("\(n).ios_sound").text
        case "name": return MessageText("\(n).name").text
        default:
            if openPushField.hasPrefix("headings") { return MessageText("\(n).title").text }
            if openPushField.hasPrefix("contents") { return MessageText("\(n).content").text }
            return n
        }
    }

    /// A rejection: no requests, one `rejected` finding per broken rule, and one error that
    /// names the first field and carries every message.
    private func rejected(route: RouteKind, sourceApp: String?, findings: [Finding], errors: [TranslationError]) -> Translation {
        var all = findings
        for e in errors { all.append(Finding(field: e.field, kind: .rejected, message: e.message)) }
        return Translation(dialect: .pushwoosh, route: route, sourceApp: sourceApp, findings: all, error: TranslationError.combine(errors))
    }
}
