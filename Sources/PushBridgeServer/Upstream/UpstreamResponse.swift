/// What one upstream call produced: an HTTP answer (any status) or a transport failure.
public enum UpstreamResponse: Sendable {
    /// The upstream answered; the status may be anything, including 4xx and 5xx.
    case reply(UpstreamReply)
    /// No complete answer arrived; see `UpstreamFailure.kind` for whether it may have been sent.
    case failure(UpstreamFailure)

    /// The reply, if there was one.
    public var reply: UpstreamReply? { if case .reply(let r) = self { r } else { nil } }
    /// The failure, if there was one.
    public var failure: UpstreamFailure? { if case .failure(let f) = self { f } else { nil } }
    /// Time from `send` to completion, either way.
    public var latency: Duration {
        switch self {
        case .reply(let r): r.latency
        case .failure(let f): f.latency
        }
    }
}

/// A complete HTTP answer from the upstream.
public struct UpstreamReply: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Response headers with lower-cased names, in arrival order (of the final response).
    public var headers: [(name: String, value: String)]
    /// The response body, exactly as received (no content decoding).
    public var body: [UInt8]
    /// Time from `send` to the last byte.
    public var latency: Duration

    /// A reply.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], latency: Duration) {
        self.status = status
        // libcurl's headers come lower-cased already (CurlEasyTransfer): kept as they are then.
        let lowered = headers.allSatisfy { !$0.name.utf8.contains { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || $0 >= 0x80 } }
        self.headers = lowered ? headers : headers.map { (name: $0.name.lowercased(), value: $0.value) }
        self.body = body
        self.latency = latency
    }

    /// The first value of a header (case-insensitive name).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.isASCIICaseInsensitive(name) }?.value
    }
}
