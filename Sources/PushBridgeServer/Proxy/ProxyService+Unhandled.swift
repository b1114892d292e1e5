import PushBridgeCore

extension ProxyService {
    /// A request PushBridge does not translate — a path no dialect route has, or a method a
    /// route does not take — is data, not just a 404: answered in the dialect its path prefix
    /// belongs to (``InboundRoute/dialect(ofPrefix:)``; plain `{"errors": […]}` otherwise)
    /// with the request id, and audited with the outcome `unhandled` and `METHOD /path` as its
    /// route, so the report counts what else a backend calls. No body is kept.
    func unhandled(_ request: HTTPRequest, route: InboundRoute?, requestId: String, started: Int64) async -> HTTPResponse {
        let name = String("\(request.method) \(request.path)".utf8Prefix(maxBytes: Self.unhandledRouteLimit))
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
        let response = http(answer, requestId)
        var entry = AuditEntry(requestId: requestId, receivedAt: started, path: request.path, dialect: dialect)
        entry.unhandledRoute = name
        let completion = AuditCompletion(finishedAt: deps.clock(), outcome: .unhandled, responseStatus: response.status,
                                         responseBody: String(decoding: response.body, as: UTF8.self), errorMessage: message)
        if (try? await deps.audit.record(entry, completion)) == nil {
            deps.log.error("audit write failed", ["request_id": .string(requestId)])
        }
        finishLog(requestId, request, response.status, started, route: route, app: nil, outcome: AuditOutcome.unhandled.rawValue)
        return response
    }

    /// The longest `METHOD /path` the audit keeps for an unhandled route, in UTF-8 bytes.
    static let unhandledRouteLimit = 256
}
