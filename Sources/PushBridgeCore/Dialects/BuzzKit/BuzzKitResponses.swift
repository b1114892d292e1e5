/// BuzzKit-shaped replies.
///
/// Success (HTTP 200 — BuzzKit's send is an action that reports outcomes, not a resource it
/// creates; replays and scheduled sends answer the same way):
/// ```
/// {"id": "<OpenPush message id>", "event": "start", "activityId": "bk_req-1",
///  "results": [], "resultsAvailable": false}
/// ```
/// `activityId` is the id OpenPush knows the activity by: on a start without one it is the id
/// PushBridge synthesized, which the backend must use for later update and end calls.
/// `results` stays empty and `resultsAvailable` false because OpenPush does not report the
/// per-token APNs outcomes BuzzKit lists (a caveat finding says so on every translation).
///
/// Errors: `{"error": {"code": "...", "message": "..."}}` with the HTTP status of the cause:
/// 400 `invalid_request`, 401 `unauthorized`, 403 `forbidden`, 404 `not_found`,
/// 413 `payload_too_large`, 429 `rate_limited` (with `Retry-After`), 502 `upstream_error`,
/// 500 `internal_error`. An OpenPush 4xx keeps its status and message.
enum BuzzKitResponses {
    /// The reply for the upstream results of a translation (BuzzKit sends one request).
    static func render(results: [UpstreamResult], for translation: Translation) -> DialectResponse {
        if let error = translation.error { return failure(.badRequest(error)) }
        guard let result = results.first, let request = translation.requests.first else {
            return failure(.internal("no upstream result for the translated request"))
        }
        switch result {
        case .accepted(let id, _), .scheduled(let id):
            return success(id: id, request: request)
        case .rejected(let status, let message, let retryAfter):
            guard (400..<500).contains(status) else { return failure(.upstream("OpenPush answered \(status): \(message)")) }
            let headers = retryAfter.map { [("Retry-After", String($0))] } ?? []
            return error(status: status, code: code(status), message: message, headers: headers)
        case .failed(let message):
            return failure(.upstream(message))
        }
    }

    /// The success body for an accepted request.
    static func success(id: String, request: OpenPushRequest) -> DialectResponse {
        var o = JSONObject()
        o["id"] = .string(id)
        o["event"] = request.event.map(JSONValue.string) ?? .null
        o["activityId"] = request.activityId.map(JSONValue.string) ?? .null
        o["results"] = .array([])
        o["resultsAvailable"] = .bool(false)
        return DialectResponse(status: 200, body: .object(o))
    }

    /// The reply for a failure PushBridge answers itself.
    static func failure(_ failure: ProxyFailure) -> DialectResponse {
        let status = failure.httpStatus
        var headers: [(String, String)] = []
        if case .rateLimited(let seconds) = failure { headers.append(("Retry-After", String(seconds))) }
        return error(status: status, code: code(status), message: failure.message, headers: headers)
    }

    /// An error reply.
    static func error(status: Int, code: String, message: String, headers: [(String, String)] = []) -> DialectResponse {
        DialectResponse(status: status, body: .object(["error": .object(["code": .string(code), "message": .string(message)])]), headers: headers)
    }

    /// The error code for an HTTP status.
    static func code(_ status: Int) -> String {
        switch status {
        case 400: "invalid_request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not_found"
        case 413: "payload_too_large"
        case 414: "uri_too_long"
        case 415: "unsupported_media_type"
        case 431: "request_header_fields_too_large"
        case 501: "not_implemented"
        case 429: "rate_limited"
        case 500: "internal_error"
        case 502, 503, 504: "upstream_error"
        case 400..<500: "request_rejected"
        default: "upstream_error"
        }
    }
}
