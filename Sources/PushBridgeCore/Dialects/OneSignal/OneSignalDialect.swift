/// The OneSignal dialect: start `POST /apps/{app_id}/activities/activity/{activity_type}` and
/// update/end `POST /apps/{app_id}/live_activities/{activity_id}/notifications` (also under
/// `/api/v1`). OpenPush's sending routes are shaped like these, so most fields carry over; what
/// OpenPush would silently ignore is dropped with a finding that says why.
public struct OneSignalDialect: Dialect {
    /// A dialect value.
    public init() {}

    /// `.onesignal`.
    public var name: DialectName { .onesignal }

    /// The mapping table of both routes.
    public var fieldMappings: [FieldMapping] { OneSignalFieldMappings.table }

    /// What OneSignal's answers hold and where it comes from.
    public var responseMappings: [FieldMapping] { OneSignalFieldMappings.responses }

    /// OneSignal's body fields are OpenPush's; the activity type (start) and id (update) are in the path.
    public func callerField(_ openPushField: String, request index: Int, route: RouteKind) -> String {
        switch openPushField {
        case "activity_id" where route == .update: "{activity_id} (path)"
        case "activity_type": "{activity_type} (path)"
        default: openPushField
        }
    }

    /// Translates a start or an update/end body already parsed.
    public func translateFields(route: InboundRoute, parsed body: ParsedBody, context: TranslationContext) -> Translation {
        let app = route.appId ?? ""
        let object: JSONObject
        switch BodyDecoding.object(body) {
        case .success(let o): object = o
        case .failure(let e):
            return Translation(dialect: .onesignal, route: route.kind, sourceApp: app,
                               error: e)
        }
        switch route.kind {
        case .start:
            return OneSignalStartTranslation.translate(appId: app, activityType: route.activityType ?? "", body: object, context: context)
        case .update, .send:
            return OneSignalUpdateTranslation.translate(appId: app, activityId: route.activityId ?? "", body: object, context: context)
        }
    }

    /// 201 with `notification_id` (start) or `id` (update/end); OpenPush errors keep their status.
    public func render(results: [UpstreamResult], for translation: Translation) -> DialectResponse {
        OneSignalResponses.success(results: results, route: translation.route)
    }

    /// `{"errors": ["…"]}` with OneSignal's statuses (403 for credentials, 503 for upstream trouble).
    public func render(failure: ProxyFailure, route: InboundRoute?) -> DialectResponse {
        OneSignalResponses.failure(failure)
    }
}
