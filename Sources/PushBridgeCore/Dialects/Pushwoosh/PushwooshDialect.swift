/// The Pushwoosh dialect (placeholder until its translation lands).
public struct PushwooshDialect: Dialect {
    /// A dialect value.
    public init() {}
    /// `.pushwoosh`.
    public var name: DialectName { .pushwoosh }
    /// The mapping table.
    public var fieldMappings: [FieldMapping] { [] }
    /// Not yet translated.
    public func translate(route: InboundRoute, body: [UInt8], context: TranslationContext) -> Translation {
        Translation(dialect: name, route: route.kind, error: TranslationError(field: "", rule: "not implemented"))
    }
    /// Not yet rendered.
    public func render(results: [UpstreamResult], for translation: Translation) -> DialectResponse {
        DialectResponse(status: 500, body: .null)
    }
    /// Not yet rendered.
    public func render(failure: ProxyFailure, route: InboundRoute?) -> DialectResponse {
        DialectResponse(status: failure.httpStatus, body: .object(["error": .string(failure.message)]))
    }
}
