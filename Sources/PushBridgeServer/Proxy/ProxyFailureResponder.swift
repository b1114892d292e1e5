import PushBridgeCore

/// Answers what the HTTP server answers itself (body over the limit, handler past its deadline,
/// shutting down) in the caller's dialect, and audits the 413s, the 400s for a malformed
/// head and the 503s of requests that came in while it drained, whose handler never ran: the server sends them only once ``recorder(audit:log:clock:)``
/// has written their row.
enum ProxyFailureResponder {
    static func make(clock: any DeliveryClock) -> @Sendable (HTTPServerFailure, HTTPRequest) -> HTTPResponse {
        { failure, request in
            guard let route = InboundRoute.match(path: request.target) else { return HTTPServerFailure.jsonResponse(failure, for: request) }
            let proxyFailure: ProxyFailure
            switch failure {
            case .bodyTooLarge(let limit): proxyFailure = .payloadTooLarge(limit: limit)
            case .malformedHead(let field, let rule): proxyFailure = .badRequest(TranslationError(field: field, rule: rule))
            case .handlerDeadlineExceeded: proxyFailure = .upstream(failure.message)
            case .shuttingDown: proxyFailure = .upstream("PushBridge is shutting down; nothing was sent; retry shortly")
            case .stoppedBeforeAnswer: proxyFailure = .upstream("PushBridge stopped before the answer was ready; retry with the same idempotency key")
            }
            let r = Dialects.named(route.dialect).render(failure: proxyFailure, route: route)
            var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
            headers += r.headers.map { (name: $0.0, value: $0.1) }
            if failure.isRecorded {
                headers.append(("X-PushBridge-Request-Id", RequestID.make(nowMs: clock.nowMilliseconds())))
            }
            return HTTPResponse(status: r.status, headers: headers, body: r.body)
        }
    }

    /// Writes the complete row of a refused 413 or malformed head (its id is the answer's
    /// `X-PushBridge-Request-Id`); the server holds the answer until this returns.
    static func recorder(audit: AuditStore, log: EventLog, clock: any DeliveryClock) -> @Sendable (HTTPServerFailure, HTTPRequest, HTTPResponse) async -> Void {
        { failure, request, response in
            guard failure.isRecorded, let route = InboundRoute.match(path: request.target),
                  let id = response.headers.first(where: { $0.name == "X-PushBridge-Request-Id" })?.value else { return }
            let now = clock.nowMilliseconds()
            let entry = AuditEntry(requestId: id, receivedAt: now, path: request.path, route: route, translation: nil,
                                   inboundBody: [], keyFingerprint: nil)
            let completion = AuditCompletion(finishedAt: now, outcome: .rejected, responseStatus: response.status,
                                             responseBody: String(decoding: response.body, as: UTF8.self), errorMessage: failure.message)
            if (try? await audit.record(entry, completion)) == nil { log.error("audit write failed", ["request_id": .string(id)]) }
        }
    }
}

extension HTTPServerFailure {
    /// Whether the server answers it only after its audit row is written: a body over the
    /// limit, a malformed head or a request that came in while the server drained, all
    /// refused before any handler ran.
    var isRecorded: Bool {
        switch self {
        case .bodyTooLarge, .malformedHead, .shuttingDown: true
        case .handlerDeadlineExceeded, .stoppedBeforeAnswer: false
        }
    }
}
