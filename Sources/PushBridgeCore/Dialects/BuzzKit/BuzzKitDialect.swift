/// BuzzKit's `POST /v1/live-activities/send`: one route whose `event` (start, update, end)
/// picks OpenPush's start route or its update/end route. See `BuzzKitFieldMappings` for what
/// happens to each field and `BuzzKitResponses` for the reply shapes.
public struct BuzzKitDialect: Dialect {
    /// A dialect value.
    public init() {}

    /// `.buzzkit`.
    public var name: DialectName { .buzzkit }

    /// Every documented BuzzKit field and its treatment (all on `RouteKind.send`).
    public var fieldMappings: [FieldMapping] { BuzzKitFieldMappings.table }

    /// What BuzzKit's reply holds and where it comes from.
    public var responseMappings: [FieldMapping] { BuzzKitFieldMappings.responses }

    /// Translates a send body into one OpenPush start or update/end request with findings.
    /// The OpenPush app is `context.openPushApp(for: context.sourceAppId ?? "buzzkit")`.
    public func translateFields(route: InboundRoute, parsed body: ParsedBody, context: TranslationContext) -> Translation {
        BuzzKitTranslator.translate(body: body, context: context)
    }

    /// The BuzzKit field an OpenPush body field comes from.
    public func callerField(_ openPushField: String, request index: Int, route: RouteKind) -> String {
        BuzzKitTranslator.callerField(openPushField)
    }

    /// The BuzzKit reply for the upstream result (`BuzzKitResponses` documents the shapes).
    public func render(results: [UpstreamResult], for translation: Translation) -> DialectResponse {
        BuzzKitResponses.render(results: results, for: translation)
    }

    /// `{"error": {"code", "message"}}` with the failure's HTTP status (and `Retry-After` on 429).
    public func render(failure: ProxyFailure, route: InboundRoute?) -> DialectResponse {
        BuzzKitResponses.failure(failure)
    }
}
