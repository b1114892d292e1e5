import PushBridgeCore

/// Sends a caller's original request, byte for byte, to its legacy provider (OneSignal,
/// Pushwoosh or BuzzKit) and hands back the provider's answer unchanged, except for the
/// hop-by-hop fields (``HopByHopHeaders``), which neither direction passes on, and the
/// provider's `X-PushBridge-Request-Id`, which the exit replaces with PushBridge's.
public struct LegacyForwarder: Sendable {
    /// The HTTP client.
    public let client: UpstreamClient

    /// A forwarder.
    public init(client: UpstreamClient) { self.client = client }

    /// What the legacy provider answered.
    public struct Answer: Sendable {
        /// The answer to give the caller: the provider's status, headers and body, or a 502
        /// when it gave none.
        public var response: HTTPResponse
        /// The provider's status, nil when the transport failed.
        public var status: Int?
        /// The transport failure, if any: its kind and curl's code.
        public var error: String?
        /// curl's full text for the same failure, for the log only (it names the address).
        public var errorDetail: String?
        /// Milliseconds until the answer.
        public var latencyMs: Double
        /// When it was sent, Unix milliseconds.
        public var startedAt: Int64

        /// The call as an attempt for the audit.
        public var attempt: UpstreamAttempt { UpstreamAttempt(startedAt: startedAt, status: status, error: error, latencyMs: latencyMs) }
    }

    /// Forwards `request` to `baseURL` + its target, with its own method, headers and body
    /// (the caller's headers are the call's own: no list of them is kept for another call).
    public func forward(_ request: HTTPRequest, baseURL: String, timeout: Duration? = nil, now: Int64) async -> Answer {
        let headers = HopByHopHeaders.strip(request.headers)
        let upstream = UpstreamRequest(method: request.method, url: baseURL + request.target, callHeaders: headers, body: request.body, timeout: timeout)
        let response = await client.send(upstream)
        let c = response.latency.components
        let ms = Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15
        switch response {
        case .reply(let r):
            let back = HopByHopHeaders.strip(r.headers)
            return Answer(response: HTTPResponse(status: r.status, headers: back, body: r.body), status: r.status, latencyMs: ms, startedAt: now)
        case .failure(let f):
            let body = JSONWriter.bytes(.object(["errors": .array([.string("the legacy provider did not answer: \(f.kind.rawValue)")])]))
            return Answer(response: HTTPResponse(status: 502, headers: [("Content-Type", "application/json")], body: body),
                          error: f.summary, errorDetail: f.description, latencyMs: ms, startedAt: now)
        }
    }
}
