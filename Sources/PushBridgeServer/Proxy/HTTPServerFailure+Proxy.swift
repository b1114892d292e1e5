import PushBridgeCore

/// An answer the HTTP server makes itself (body over the limit, a refused head, a request that
/// came in while draining, a handler past its deadline, what libmicrohttpd refused with its
/// own answer) as a value of the pipeline: it renders itself in the caller's dialect — the
/// route's, else the dialect its path prefix belongs to, else plain `{"errors": […]}` — and
/// says what its audit row and access line hold (``outcome(_:now:)``). The server hands it to
/// ``ProxyService/answer(_:to:)``, which takes it through the pipeline's exit.
extension HTTPServerFailure {
    /// The failure as the pipeline names it.
    var proxyFailure: ProxyFailure {
        switch self {
        case .bodyTooLarge(let limit): .payloadTooLarge(limit: limit)
        case .malformedHead(let field, let rule, 400): .badRequest(TranslationError(field: field, rule: rule))
        case .malformedHead(let field, let rule, let status): .unacceptable(status: status, TranslationError(field: field, rule: rule))
        case .refusedByLibrary: .badRequest(TranslationError(field: "", rule: message))
        case .handlerDeadlineExceeded: .upstream(message)
        case .shuttingDown: .upstream("PushBridge is shutting down; nothing was sent; retry shortly")
        case .stoppedBeforeAnswer: .upstream("PushBridge stopped before the answer was ready; retry with the same idempotency key")
        }
    }

    /// The answer to `request` in its caller's dialect, without the request id (the exit adds it).
    func answer(for request: HTTPRequest) -> HTTPResponse {
        let route = InboundRoute.match(path: request.target)
        guard let dialect = route?.dialect ?? InboundRoute.dialect(ofPrefix: request.target) else {
            return .json(status, .object(["errors": .array([.string(proxyFailure.message)])]))
        }
        return HTTPResponse(dialect: Dialects.named(dialect).render(failure: proxyFailure, route: route))
    }

    /// What the exit carries out for it. A refusal made before any handler ran gets its
    /// complete `rejected` row (a path no route has: a row with its path and prefix dialect
    /// and no route, the refusal is of its head, not of a route); one libmicrohttpd answered
    /// itself keeps the status it sent (when it says), not a body it never saw. A handler
    /// past its deadline completes the row its handler began (`failed`), or writes the whole
    /// row if the handler began none; the handler's own ending is added when it comes
    /// (``ProxyService/exit(_:_:)``).
    func outcome(_ call: Call, now: Int64) -> Outcome {
        let request = call.request
        let route = InboundRoute.match(path: request.target)
        let entry = route.map {
            AuditEntry(requestId: call.requestId, receivedAt: call.started, path: request.path, route: $0, translation: nil, inboundBody: [], keyFingerprint: nil)
        } ?? AuditEntry(requestId: call.requestId, receivedAt: call.started, path: request.path.isEmpty ? nil : request.path,
                        dialect: InboundRoute.dialect(ofPrefix: request.path))
        var answer = answer(for: request)
        var completion = AuditCompletion(finishedAt: now, outcome: .rejected, errorMessage: message)
        switch self {
        case .refusedByLibrary:
            answer.status = status
            completion.responseStatus = status > 0 ? status : nil
            return Outcome(answer: answer, audit: .record(entry, completion), route: route, app: nil, log: AuditOutcome.rejected.rawValue, answerSent: false)
        case .handlerDeadlineExceeded, .stoppedBeforeAnswer:
            completion.outcome = .failed
            return Outcome(answer: answer, audit: .completeOrRecord(entry, completion), route: route, app: nil, log: AuditOutcome.failed.rawValue)
        case .bodyTooLarge, .malformedHead, .shuttingDown:
            return Outcome(answer: answer, audit: .record(entry, completion), route: route, app: nil, log: AuditOutcome.rejected.rawValue)
        }
    }

    /// What the server answers without its exit (a handler that stopped being waited for at
    /// a stop, or whose exit is stuck past a second deadline): the dialect's answer, naming
    /// the request's id (its handler's row) when it has one.
    static let proxyResponder: @Sendable (HTTPServerFailure, HTTPRequest) -> HTTPResponse = { failure, request in
        var response = failure.answer(for: request)
        if let id = request.ticket?.id { response.headers.append((name: "X-PushBridge-Request-Id", value: id)) }
        return response
    }
}
