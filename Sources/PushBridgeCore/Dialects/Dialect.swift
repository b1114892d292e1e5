/// A caller's dialect: decodes its requests into OpenPush requests with findings, and renders
/// OpenPush's answers and PushBridge's own failures back in the caller's shape.
public protocol Dialect: Sendable {
    /// The dialect's name.
    var name: DialectName { get }

    /// Every documented source field and what the translation does with it.
    var fieldMappings: [FieldMapping] { get }

    /// Translates a raw body for a matched route. Never throws: a request that cannot be
    /// forwarded comes back with `error` set and no requests.
    func translate(route: InboundRoute, body: [UInt8], context: TranslationContext) -> Translation

    /// Translates a body already parsed (the proxy parses each body once and shares it).
    /// Gives the same translation as ``translate(route:body:context:)`` for `body.bytes`.
    func translate(route: InboundRoute, parsed body: ParsedBody, context: TranslationContext) -> Translation

    /// The caller's answer for the upstream results, one per request of the translation.
    func render(results: [UpstreamResult], for translation: Translation) -> DialectResponse

    /// The caller's answer for a failure PushBridge answers itself.
    func render(failure: ProxyFailure, route: InboundRoute?) -> DialectResponse
}

extension Dialect {
    /// Parses `body.bytes` again: for dialects that do not read a parsed body themselves.
    public func translate(route: InboundRoute, parsed body: ParsedBody, context: TranslationContext) -> Translation {
        translate(route: route, body: body.bytes, context: context)
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
