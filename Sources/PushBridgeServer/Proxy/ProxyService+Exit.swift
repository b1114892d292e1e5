import PushBridgeCore

extension ProxyService {
    /// The one exit every answer leaves through: the audit row written or completed (committed
    /// before the caller is answered; a completion is retried, see ``settle(_:_:answer:route:ids:)``),
    /// the request id header (replacing any the answer carried), the access line, the request metric.
    func exit(_ call: Call, _ outcome: Outcome) async -> HTTPResponse {
        let scrubber = outcome.scrubber
        var response = scrubber.map { $0.scrub(outcome.answer) } ?? outcome.answer
        switch outcome.audit {
        case .record(let entry, let completion):
            if (try? await deps.audit.record(entry, Self.answered(completion, response, scrubber))) == nil {
                deps.log.error("audit write failed", ["request_id": .string(call.requestId)])
            }
        case .complete(let completion):
            response = await settle(call, Self.answered(completion, response, scrubber), answer: response, route: outcome.route, ids: outcome.acceptedIds)
        case .done:
            break
        }
        // PushBridge's id is the only one: a legacy provider's answer may carry its own.
        response.headers.removeAll { $0.name.lowercased() == "x-pushbridge-request-id" }
        response.headers.append((name: "X-PushBridge-Request-Id", value: call.requestId))
        deps.metrics.recordRequest(dialect: outcome.route?.dialect, route: outcome.route?.kind, status: response.status)
        deps.log.access(requestId: call.requestId, method: call.request.method, path: call.request.path, status: response.status,
                        durationMs: Double(deps.clock() - call.started), dialect: outcome.route?.dialect, app: outcome.app,
                        outcome: outcome.log, remote: call.request.remoteAddress)
        outcome.afterAnswer?(response)
        return response
    }

    /// `completion` with the caller's answer as its response, unless the stage set one, and
    /// every text it stores scrubbed.
    private static func answered(_ completion: AuditCompletion, _ response: HTTPResponse, _ scrubber: SecretScrubber?) -> AuditCompletion {
        var c = completion
        if c.responseStatus == nil {
            c.responseStatus = response.status
            c.responseBody = String(decoding: response.body, as: UTF8.self)
        }
        return scrubber.map { $0.scrub(c) } ?? c
    }

    /// A dialect's answer as an HTTP response (the exit adds the request id).
    static func http(_ r: DialectResponse) -> HTTPResponse {
        HTTPResponse(status: r.status, headers: [("Content-Type", "application/json")] + r.headers.map { (name: $0.0, value: $0.1) }, body: r.body)
    }
}
