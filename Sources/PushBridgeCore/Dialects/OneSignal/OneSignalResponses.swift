/// OneSignal's answer shapes: `{"notification_id"}` on start, `{"id"}` on update/end, and
/// `{"errors": ["…"]}` for every error.
enum OneSignalResponses {
    static func success(results: [UpstreamResult], route: RouteKind) -> DialectResponse {
        guard results.count == 1 else {
            return failure(.internal("expected one upstream result for a OneSignal request, got \(results.count)"))
        }
        let key = route == .start ? "notification_id" : "id"
        switch results[0] {
        case .accepted(let id, let replayed):
            return DialectResponse(status: 201, body: .object([key: .string(id)]), headers: replayed ? [("Idempotent-Replayed", "true")] : [])
        case .scheduled(let id):
            return DialectResponse(status: 201, body: .object([key: .string(id)]))
        case .rejected(let status, let message, let retryAfter):
            let headers = retryAfter.map { [("Retry-After", String($0))] } ?? []
            return DialectResponse(status: status, body: errors(message), headers: headers)
        case .failed(let message):
            return failure(.upstream(message))
        }
    }

    static func failure(_ f: ProxyFailure) -> DialectResponse {
        switch f {
        case .unauthorized(let m):
            return DialectResponse(status: 403, body: errors(m))
        case .rateLimited(let s):
            return DialectResponse(status: 429, body: errors(f.message), headers: [("Retry-After", String(s))])
        case .upstream, .unavailable:
            // OneSignal documents 503 for "retry after a short backoff".
            return DialectResponse(status: 503, body: errors(f.message))
        default:
            return DialectResponse(status: f.httpStatus, body: errors(f.message))
        }
    }

    static func errors(_ message: String) -> JSONValue { .object(["errors": .array([.string(message)])]) }
}
