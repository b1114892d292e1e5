/// One HTTP request for the upstream (OpenPush or the sandbox), fully formed.
public struct UpstreamRequest: Sendable {
    /// `GET`, `POST`, `PATCH`, `DELETE`, …
    public var method: String
    /// The absolute URL, e.g. `https://api.openpush.example/v1/apps/A/live_activities/start`.
    public var url: String
    /// Headers to send, in order. `Expect:` is always sent empty; `Content-Length` is computed.
    /// They are the same for many calls (an app's key): the client builds their lines once and
    /// shares them between the calls that send the same.
    public var headers: [(name: String, value: String)]
    /// The request id of this call, sent as `X-PushBridge-Request-Id` first of the call's own
    /// lines (before ``callHeaders``): the line a call header of that name would be, without an
    /// array for it (issue 31: one allocation an OpenPush call).
    public var requestId: String?
    /// Headers of this call only (a request id, a caller's headers passed through), sent
    /// before `headers` and never kept for another call.
    public var callHeaders: [(name: String, value: String)]
    /// The request body (may be empty).
    public var body: [UInt8]
    /// A deadline for this request shorter than the client's total timeout, or `nil` for the
    /// client's `timeout`. Longer values are capped at the client's timeout.
    public var timeout: Duration?

    /// A request.
    public init(method: String, url: String, headers: [(name: String, value: String)] = [], requestId: String? = nil,
                callHeaders: [(name: String, value: String)] = [], body: [UInt8] = [], timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.requestId = requestId
        self.callHeaders = callHeaders
        self.body = body
        self.timeout = timeout
    }
}

extension UpstreamRequest {
    /// The name ``requestId`` is sent under.
    static let requestIdHeader = "X-PushBridge-Request-Id"
}
