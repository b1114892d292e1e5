import PushBridgeCore

/// A request PushBridge does not translate — a path no dialect route has, or a method a route
/// does not take — is data, not just a 404: answered in the dialect its path prefix belongs
/// to (``InboundRoute/dialect(ofPrefix:)``; plain `{"errors": […]}` otherwise) and audited with
/// the outcome `unhandled` and `METHOD /path` as its route, so the report counts what else a
/// backend calls. No body is kept.
enum UnhandledRoute {
    /// The longest `METHOD /path` the audit keeps, in UTF-8 bytes.
    static let limit = 256

    static func outcome(_ call: Call, route: InboundRoute?, now: Int64) -> Outcome {
        let request = call.request
        let name = String("\(request.method) \(request.path)".utf8Prefix(maxBytes: limit))
        let dialect = route?.dialect ?? InboundRoute.dialect(ofPrefix: request.path)
        let message = route == nil
            ? "\(name) is not proxied: PushBridge proxies only the Live Activity routes"
            : "\(request.method) is not allowed here; use POST"
        let answer: DialectResponse
        switch dialect {
        case .pushwoosh?: answer = PushwooshDialect().render(unhandledRoute: message)
        case let dialect?: answer = Dialects.named(dialect).render(failure: .notFound(message), route: route)
        case nil: answer = DialectResponse(status: 404, body: .object(["errors": .array([.string(message)])]))
        }
        var entry = AuditEntry(requestId: call.requestId, receivedAt: call.started, path: request.path, dialect: dialect)
        entry.unhandledRoute = name
        return Outcome(answer: HTTPResponse(dialect: answer), audit: .record(entry, AuditCompletion(finishedAt: now, outcome: .unhandled, errorMessage: message)),
                       route: route, app: nil, log: AuditOutcome.unhandled.rawValue)
    }
}
