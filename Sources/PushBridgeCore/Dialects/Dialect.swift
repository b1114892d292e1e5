/// A caller's dialect: decodes its requests into OpenPush requests with findings, and renders
/// OpenPush's answers and PushBridge's own failures back in the caller's shape.
public protocol Dialect: Sendable {
    /// The dialect's name.
    var name: DialectName { get }

    /// Every documented source field and what the translation does with it.
    var fieldMappings: [FieldMapping] { get }

    /// Every documented field of the dialect's answers and where its value comes from.
    var responseMappings: [FieldMapping] { get }

    /// Translates a body already parsed into the dialect's OpenPush requests and findings,
    /// before the shared check (``OpenPushCheck``) every translation goes through. Callers use
    /// ``translate(route:parsed:context:)``, which runs both.
    func translateFields(route: InboundRoute, parsed body: ParsedBody, context: TranslationContext) -> Translation

    /// The caller's field path for an OpenPush body field of request `index` of a translation
    /// on `route` (`headings.en` → `notifications[0].title`), so findings name the caller's field.
    func callerField(_ openPushField: String, request index: Int, route: RouteKind) -> String

    /// The caller's answer for the upstream results, one per request of the translation.
    func render(results: [UpstreamResult], for translation: Translation) -> DialectResponse

    /// The caller's answer for a failure PushBridge answers itself.
    func render(failure: ProxyFailure, route: InboundRoute?) -> DialectResponse
}

extension Dialect {
    /// Translates a raw body for a matched route. Never fails: a request that cannot be
    /// forwarded comes back with `error` set and no requests.
    public func translate(route: InboundRoute, body: [UInt8], context: TranslationContext) -> Translation {
        translate(route: route, parsed: ParsedBody(body), context: context)
    }

    /// Translates a body already parsed (the proxy parses each body once and shares it), then
    /// checks every OpenPush request against OpenPush's rules: one broken rule in any request
    /// rejects the whole translation, so nothing half-translated is ever sent.
    public func translate(route: InboundRoute, parsed body: ParsedBody, context: TranslationContext) -> Translation {
        OpenPushCheck.check(translateFields(route: route, parsed: body, context: context)) { field, index in
            callerField(field, request: index, route: route.kind)
        }
    }
}

/// The dialects PushBridge speaks, by name.
public enum Dialects {
    /// Every dialect.
    public static let all: [any Dialect] = [OneSignalDialect(), PushwooshDialect(), BuzzKitDialect()]

    /// The dialect for a name.
    public static func named(_ name: DialectName) -> any Dialect {
        switch name {
        case .onesignal: OneSignalDialect()
        case .pushwoosh: PushwooshDialect()
        case .buzzkit: BuzzKitDialect()
        }
    }

    /// Matches a path and translates its body: the whole inbound step in one call.
    /// Returns nil when no dialect has the path.
    public static func translate(path: String, body: [UInt8], context: TranslationContext) -> (InboundRoute, Translation)? {
        guard let route = InboundRoute.match(path: path) else { return nil }
        return (route, named(route.dialect).translate(route: route, body: body, context: context))
    }
}
