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
        let n = "notifications[\(index)]"
        switch openPushField {
        case "activity_id": return "\(n).live_activity_id"
        case "event": return "\(n).live_activity.event"
        case "activity_type": return "\(n).live_activity.attributes-type"
        case "event_updates": return "\(n).live_activity.content-state"
        case "event_attributes": return "\(n).live_activity.attributes"
        case "stale_date": return "\(n).live_activity.stale-date"
        case "dismissal_date": return "\(n).live_activity.dismissal-date"
        case "ios_relevance_score": return "\(n).live_activity.relevance-score"
        case "priority": return "\(n).apns_priority"
        case "ios_sound", "sound": return "\(n).ios_sound"
        case "name": return "\(n).name"
        default:
            if openPushField.hasPrefix("headings") { return "\(n).title" }
            if openPushField.hasPrefix("contents") { return "\(n).content" }
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
