/// Pushwoosh-shaped answers. Pushwoosh answers HTTP 200 with a `status_code` in the body:
/// 200 success, 210 argument error (`"response": null`), 500 server error; PushBridge adds
/// HTTP 429 with `Retry-After` (body `status_code` 429) when OpenPush or PushBridge throttles.
///
/// Partial results (some notifications of one request accepted, others not) keep Pushwoosh's
/// shape and say exactly what happened:
/// - `status_code` is the worst failure's code: 500 (upstream failure) over 429 (throttled) over
///   210 (OpenPush refused a translated notification as an argument error);
/// - `status_message` lists every notification by index: which were accepted (with their id)
///   or scheduled, and why each other one failed, so a caller can retry only what failed;
/// - `response` is `{"Messages": [...]}` with one entry per notification, in notification
///   order: the id, or `null` for a notification that failed, so `Messages[i]` always belongs
///   to `notifications[i]` (`response` is `null` only when nothing at all was sent).
extension PushwooshDialect {
    /// Access problems, in Pushwoosh's own words.
    static let accessDenied = "Access denied or application not found"

    /// The caller's answer for the upstream results, one per request of the translation.
    public func render(results: [UpstreamResult], for translation: Translation) -> DialectResponse {
        if let error = translation.error { return render(failure: .badRequest(error), route: nil) }
        var ids: [JSONValue] = []
        var parts: [String] = []
        var worst = 200
        var retryAfter: Int?
        let count = max(results.count, translation.requests.count)
        for i in 0..<count {
            let label = "notifications[\(i)]"
            switch i < results.count ? results[i] : .failed(message: "no upstream result") {
            case .accepted(let id, _):
                ids.append(.string(id))
                parts.append("\(label) accepted as \(id)")
            case .scheduled(let id):
                ids.append(.string(id))
                parts.append("\(label) scheduled as \(id)")
            case .rejected(let status, let message, let after) where status == 429:
                ids.append(.null)
                worst = max(worst, 429)
                retryAfter = max(retryAfter ?? 0, after ?? Int(OpenPushLimits.rateLimitWindowSeconds))
                parts.append("\(label) not sent, rate limited by OpenPush: \(message)")
            case .rejected(let status, let message, _) where (400..<500).contains(status):
                ids.append(.null)
                worst = max(worst, 210)
                parts.append("\(label) rejected by OpenPush (\(status)): \(message)")
            case .rejected(let status, let message, _):
                ids.append(.null)
                worst = 500
                parts.append("\(label) failed upstream (\(status)): \(message)")
            case .failed(let message):
                ids.append(.null)
                worst = 500
                parts.append("\(label) failed upstream: \(message)")
            }
        }
        let messages: JSONValue = .object(["Messages": .array(ids)])
        if worst == 200 { return body(http: 200, code: 200, message: "OK", response: messages) }
        let sent = ids.contains { $0 != .null }
        let message = (sent ? "partially sent: " : "") + parts.joined(separator: "; ")
        let response: JSONValue = sent ? messages : .null
        switch worst {
        case 429:
            let after = retryAfter ?? Int(OpenPushLimits.rateLimitWindowSeconds)
            return body(http: 429, code: 429, message: message, response: response, headers: [("Retry-After", String(after))])
        case 210: return body(http: 200, code: 210, message: message, response: response)
        default: return body(http: 500, code: 500, message: message, response: response)
        }
    }

    /// The caller's answer for a failure PushBridge answers itself.
    public func render(failure: ProxyFailure, route: InboundRoute?) -> DialectResponse {
        switch failure {
        case .badRequest, .unacceptable, .payloadTooLarge:
            body(http: 200, code: 210, message: failure.message, response: .null)
        case .unauthorized, .notFound:
            body(http: 200, code: 210, message: Self.accessDenied, response: .null)
        case .rateLimited(let after):
            body(http: 429, code: 429, message: failure.message, response: .null, headers: [("Retry-After", String(after))])
        case .upstream, .internal:
            body(http: 500, code: 500, message: failure.message, response: .null)
        case .unavailable:
            body(http: 503, code: 503, message: failure.message, response: .null)
        }
    }

    private func body(http: Int, code: Int, message: String, response: JSONValue, headers: [(String, String)] = []) -> DialectResponse {
        DialectResponse(status: http, body: .object(["status_code": .int(Int64(code)), "status_message": .string(message), "response": response]),
                        headers: headers)
    }
}
