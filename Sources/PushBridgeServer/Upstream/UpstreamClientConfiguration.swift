/// How the upstream client connects. Every field has a production default.
public struct UpstreamClientConfiguration: Sendable {
    /// Time allowed to establish a connection (TCP and TLS). Default 2 s.
    public var connectTimeout: Duration
    /// The hard deadline for a whole call, connect included (`CURLOPT_TIMEOUT_MS`). Default 10 s.
    /// A suspended inbound connection waits on this, so it must never be infinite.
    public var timeout: Duration
    /// A PEM bundle of CA certificates to trust instead of the system store, or `nil`.
    public var caFile: String?
    /// Idle keep-alive connections kept in the pool (`CURLMOPT_MAXCONNECTS`). Default 64.
    public var maxIdleConnections: Int
    /// Largest answer accepted, headers and body together; larger ones are aborted with
    /// `responseTooLarge`. Default 4 MiB.
    public var maxResponseBytes: Int
    /// The `User-Agent` sent when the request has none. Default `PushBridge`.
    public var userAgent: String

    /// A configuration; every argument has the default documented on its property.
    public init(
        connectTimeout: Duration = .milliseconds(2000),
        timeout: Duration = .milliseconds(10_000),
        caFile: String? = nil,
        maxIdleConnections: Int = 64,
        maxResponseBytes: Int = 4 << 20,
        userAgent: String = "PushBridge"
    ) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.caFile = caFile
        self.maxIdleConnections = maxIdleConnections
        self.maxResponseBytes = maxResponseBytes
        self.userAgent = userAgent
    }
}

extension Duration {
    /// Whole milliseconds, at least 1 (curl treats 0 as "no timeout").
    var curlMilliseconds: Int {
        let (s, atto) = components
        return max(1, Int(s) * 1000 + Int(atto / 1_000_000_000_000_000))
    }
}
