/// What OpenPush (or the transport) answered for one forwarded request; a dialect renders a list
/// of these, one per request of the translation, in the caller's shape.
public enum UpstreamResult: Sendable, Equatable {
    /// 2xx with the message id; `replayed` when OpenPush sent `Idempotent-Replayed: true`.
    case accepted(id: String, replayed: Bool)
    /// Scheduled by PushBridge for later; the id is PushBridge's.
    case scheduled(id: String)
    /// OpenPush answered with an error status and message.
    case rejected(status: Int, message: String, retryAfter: Int?)
    /// No usable answer: refused, reset, timed out, 5xx, or an unreadable body.
    case failed(message: String)
}

/// A failure PushBridge itself answers, before or instead of forwarding.
public enum ProxyFailure: Sendable, Equatable {
    /// The request cannot be translated (malformed, wrong type, missing field, rule).
    case badRequest(TranslationError)
    /// The request's HTTP head is refused with `status` other than 400: a content coding
    /// PushBridge does not decode (415), a transfer coding it does not implement (501), a head
    /// (431) or a target (414) over its limit.
    case unacceptable(status: Int, TranslationError)
    /// No or wrong credentials.
    case unauthorized(String)
    /// The app or route is unknown.
    case notFound(String)
    /// The body is over the limit.
    case payloadTooLarge(limit: Int)
    /// Too many requests; retry after the given seconds.
    case rateLimited(retryAfter: Int)
    /// The upstream failed or did not answer in time.
    case upstream(String)
    /// Something inside PushBridge failed.
    case `internal`(String)
    /// PushBridge cannot serve for now (its audit database is unreachable); nothing was sent.
    case unavailable(String)

    /// The HTTP status a REST dialect would use.
    public var httpStatus: Int {
        switch self {
        case .badRequest: 400
        case .unacceptable(let status, _): status
        case .unauthorized: 401
        case .notFound: 404
        case .payloadTooLarge: 413
        case .rateLimited: 429
        case .upstream: 502
        case .internal: 500
        case .unavailable: 503
        }
    }

    /// The message for the caller.
    public var message: String {
        switch self {
        case .badRequest(let e), .unacceptable(_, let e): e.message
        case .unauthorized(let m), .notFound(let m), .upstream(let m), .internal(let m), .unavailable(let m): m
        case .payloadTooLarge(let limit): "request body is larger than the limit of \(limit) bytes"
        case .rateLimited(let s): "rate limit exceeded; retry after \(s) seconds"
        }
    }
}

/// An HTTP answer in the caller's dialect.
public struct DialectResponse: Sendable, Equatable {
    /// HTTP status.
    public var status: Int
    /// Extra headers (Content-Type is always JSON).
    public var headers: [(String, String)]
    /// The body.
    public var body: [UInt8]

    /// A response with a JSON body.
    public init(status: Int, body: JSONValue, headers: [(String, String)] = []) {
        self.status = status
        self.headers = headers
        self.body = JSONWriter.bytes(body)
    }

    /// Compares status, headers and body.
    public static func == (a: DialectResponse, b: DialectResponse) -> Bool {
        a.status == b.status && a.body == b.body && a.headers.elementsEqual(b.headers, by: { $0 == $1 })
    }
}
