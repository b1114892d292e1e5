import PushBridgeCore

/// Answers what the HTTP server answers itself (body over the limit, a refused head, handler
/// past its deadline, shutting down) in the caller's dialect — the route's, else the dialect
/// its path prefix belongs to, else plain `{"errors": […]}` — and audits the refusals whose
/// handler never ran (413, refused heads, 503s while draining, and what libmicrohttpd refused
/// with its own answer): the server sends them only once ``recorder(audit:log:clock:)`` has
/// written their row and access line.
enum ProxyFailureResponder {
    static func make(clock: any DeliveryClock) -> @Sendable (HTTPServerFailure, HTTPRequest) -> HTTPResponse {
        { failure, request in
            let route = InboundRoute.match(path: request.target)
            let proxyFailure: ProxyFailure
            switch failure {
            case .bodyTooLarge(let limit): proxyFailure = .payloadTooLarge(limit: limit)
            case .malformedHead(let field, let rule, 400): proxyFailure = .badRequest(TranslationError(field: field, rule: rule))
            case .malformedHead(let field, let rule, let status): proxyFailure = .unacceptable(status: status, TranslationError(field: field, rule: rule))
            case .refusedByLibrary: proxyFailure = .badRequest(TranslationError(field: "", rule: failure.message))
            case .handlerDeadlineExceeded: proxyFailure = .upstream(failure.message)
            case .shuttingDown: proxyFailure = .upstream("PushBridge is shutting down; nothing was sent; retry shortly")
            case .stoppedBeforeAnswer: proxyFailure = .upstream("PushBridge stopped before the answer was ready; retry with the same idempotency key")
            }
            var response: HTTPResponse
            if let dialect = route?.dialect ?? InboundRoute.dialect(ofPrefix: request.target) {
                let r = Dialects.named(dialect).render(failure: proxyFailure, route: route)
                response = HTTPResponse(status: r.status, headers: [("Content-Type", "application/json")] + r.headers.map { (name: $0.0, value: $0.1) },
                                        body: r.body)
            } else {
                response = .json(failure.status, .object(["errors": .array([.string(proxyFailure.message)])]))
            }
            if failure.isRecorded {
                response.headers.append(("X-PushBridge-Request-Id", RequestID.make(nowMs: clock.nowMilliseconds())))
            }
            return response
        }
    }

    /// Writes the complete row of a refusal the server made itself (its id is the answer's
    /// `X-PushBridge-Request-Id`) and its access line; the server holds the answer until this
    /// returns. A path no route has gets a row with its path and prefix dialect and no route:
    /// the refusal is of its head, not of a route.
    static func recorder(audit: AuditStore, log: EventLog, clock: any DeliveryClock) -> @Sendable (HTTPServerFailure, HTTPRequest, HTTPResponse) async -> Void {
        { failure, request, response in
            guard failure.isRecorded, let id = response.headers.first(where: { $0.name == "X-PushBridge-Request-Id" })?.value else { return }
            let now = clock.nowMilliseconds()
            let route = InboundRoute.match(path: request.target)
            let entry = route.map {
                AuditEntry(requestId: id, receivedAt: now, path: request.path, route: $0, translation: nil, inboundBody: [], keyFingerprint: nil)
            } ?? AuditEntry(requestId: id, receivedAt: now, path: request.path.isEmpty ? nil : request.path, dialect: InboundRoute.dialect(ofPrefix: request.path))
            // What libmicrohttpd sent is not this response: keep its status (when it says), not a body it never saw.
            let sent = failure.answeredByLibrary ? nil : String(decoding: response.body, as: UTF8.self)
            let status = failure.answeredByLibrary ? failure.status : response.status
            let completion = AuditCompletion(finishedAt: now, outcome: .rejected, responseStatus: status > 0 ? status : nil,
                                             responseBody: sent, errorMessage: failure.message)
            if (try? await audit.record(entry, completion)) == nil { log.error("audit write failed", ["request_id": .string(id)]) }
            log.access(requestId: id, method: request.method, path: request.path, status: status, durationMs: 0,
                       dialect: entry.dialect, app: nil, outcome: AuditOutcome.rejected.rawValue, remote: request.remoteAddress)
        }
    }
}

extension HTTPServerFailure {
    /// Whether the server answers it only after its audit row is written: a body over the
    /// limit, a refused head or a request that came in while the server drained, all refused
    /// before any handler ran; and a refusal libmicrohttpd answered itself, recorded after.
    var isRecorded: Bool {
        switch self {
        case .bodyTooLarge, .malformedHead, .shuttingDown, .refusedByLibrary: true
        case .handlerDeadlineExceeded, .stoppedBeforeAnswer: false
        }
    }

    /// Whether libmicrohttpd sent its own answer (the responder's was made only for the record).
    var answeredByLibrary: Bool {
        if case .refusedByLibrary = self { return true }
        return false
    }
}
