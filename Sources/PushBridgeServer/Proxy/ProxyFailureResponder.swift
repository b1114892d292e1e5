import PushBridgeCore

/// Answers what the HTTP server answers itself (body over the limit, handler past its deadline,
/// shutting down) in the caller's dialect, and audits the 413s, whose handler never ran.
enum ProxyFailureResponder {
    static func make(audit: AuditStore, log: EventLog) -> @Sendable (HTTPServerFailure, HTTPRequest) -> HTTPResponse {
        { failure, request in
            guard let route = InboundRoute.match(path: request.target) else { return HTTPServerFailure.jsonResponse(failure, for: request) }
            let proxyFailure: ProxyFailure
            switch failure {
            case .bodyTooLarge(let limit): proxyFailure = .payloadTooLarge(limit: limit)
            case .handlerDeadlineExceeded: proxyFailure = .upstream(failure.message)
            case .shuttingDown: proxyFailure = .upstream("PushBridge is shutting down; retry shortly")
            }
            let r = Dialects.named(route.dialect).render(failure: proxyFailure, route: route)
            var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
            headers += r.headers.map { (name: $0.0, value: $0.1) }
            if case .bodyTooLarge = failure {
                let now = AuditClock.nowMilliseconds()
                let id = RequestID.make(nowMs: now)
                headers.append(("X-PushBridge-Request-Id", id))
                let entry = AuditEntry(requestId: id, receivedAt: now, path: request.path, route: route, translation: nil,
                                       inboundBody: [], keyFingerprint: nil)
                let completion = AuditCompletion(finishedAt: now, outcome: .rejected, responseStatus: r.status,
                                                 responseBody: String(decoding: r.body, as: UTF8.self), errorMessage: failure.message)
                Task { if (try? await audit.record(entry, completion)) == nil { log.error("audit write failed", ["request_id": .string(id)]) } }
            }
            return HTTPResponse(status: r.status, headers: headers, body: r.body)
        }
    }
}
