/// How an ``HTTPServer`` binds and which limits it enforces. Every field has a documented
/// default; validate once with ``validate()`` (``HTTPServer/init(configuration:handler:)``
/// does this before binding).
public struct HTTPServerConfiguration: Sendable {
    /// The numeric IPv4 or IPv6 address to bind. Default `"127.0.0.1"` (loopback only).
    public var host: String = "127.0.0.1"
    /// The TCP port to bind. Default `0`: the kernel picks a free port, read it back from
    /// ``HTTPServer/port``.
    public var port: UInt16 = 0
    /// The largest request body accepted, in bytes. A larger body is answered `413` through
    /// ``failureResponder`` without calling the handler: at once when `Content-Length` declares
    /// it, otherwise (chunked) after the rest of the body has been read and dropped; a chunked
    /// body more than `max(maxBodyBytes, 1 MiB)` past the limit gets its connection closed.
    /// Default 1 MiB.
    public var maxBodyBytes: Int = 1 << 20
    /// The most connections open at once (`MHD_OPTION_CONNECTION_LIMIT`). Default 1000.
    public var connectionLimit: Int = 1000
    /// The most connections open at once from one peer address (enforced by
    /// ``ConnectionWatch``, a connection past it is closed at once); `0` means no per-address
    /// limit. Default `0`,
    /// because a proxy's callers are usually a few backend hosts with many connections each.
    public var perAddressConnectionLimit: Int = 0
    /// Memory per connection for the request line and headers, in bytes
    /// (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`); a request whose headers do not fit is refused by
    /// libmicrohttpd itself. Default 16 KiB (the pool is resident for every open connection).
    public var headerMemoryBytes: Int = 16 * 1024
    /// How long a connection may sit idle (no bytes in either direction, handler not running)
    /// before it is closed (`MHD_OPTION_CONNECTION_TIMEOUT`, whole seconds, rounded up).
    /// Default 30 s.
    public var idleTimeout: Duration = .seconds(30)
    /// How long a connection may take to deliver a whole request, head and body, counted from
    /// its accept (or, on a kept-alive connection, from its request line, and at most
    /// ``idleTimeout`` plus this from the previous answer). A connection past it is closed
    /// without an answer, however steadily it sends; see ``ConnectionWatch``. Default 10 s.
    public var requestTimeout: Duration = .seconds(10)
    /// How long a handler may run. When it passes, the caller is answered `504` through
    /// ``failureResponder`` and the handler's task is cancelled: a suspended connection never
    /// waits forever. Default 30 s.
    public var handlerDeadline: Duration = .seconds(30)
    /// The polling threads libmicrohttpd runs (`MHD_OPTION_THREAD_POOL_SIZE`). Default 2.
    public var threadCount: Int = 2
    /// Serve HTTPS with this certificate (libmicrohttpd's TLS, TLS 1.2 and 1.3 only), or plain
    /// HTTP when `nil`. Replace it on a running server with ``HTTPServer/replaceCertificate(_:)``.
    /// Default `nil`.
    public var tls: TLSCertificate?
    /// Renders the answers the server makes itself (`413`, `504`, `503`), so a proxy can answer
    /// in its caller's dialect. Default: ``HTTPServerFailure/jsonResponse(_:for:)``.
    public var failureResponder: @Sendable (HTTPServerFailure, HTTPRequest) -> HTTPResponse = HTTPServerFailure.jsonResponse
    /// Runs before a `413` the server answers itself is sent, with the answer
    /// ``failureResponder`` made: the connection is suspended until it returns, so what it
    /// records (the proxy's audit row) is written before the caller can see the answer. It
    /// runs under ``handlerDeadline`` like a handler. Default nil: the `413` is sent at once.
    public var refusalRecorder: (@Sendable (HTTPServerFailure, HTTPRequest, HTTPResponse) async -> Void)?

    /// A configuration with every default.
    public init() {}

    /// Checks the values, throwing ``HTTPServerError`` naming the first bad field.
    public func validate() throws(HTTPServerError) {
        if maxBodyBytes < 0 { throw HTTPServerError("maxBodyBytes must be 0 or more, got \(maxBodyBytes)") }
        if connectionLimit < 1 || connectionLimit > Int(UInt32.max) { throw HTTPServerError("connectionLimit must be at least 1, got \(connectionLimit)") }
        if perAddressConnectionLimit < 0 || perAddressConnectionLimit > Int(UInt32.max) { throw HTTPServerError("perAddressConnectionLimit must be 0 or more, got \(perAddressConnectionLimit)") }
        if headerMemoryBytes < 1024 { throw HTTPServerError("headerMemoryBytes must be at least 1024, got \(headerMemoryBytes)") }
        if idleTimeout < .zero { throw HTTPServerError("idleTimeout must not be negative") }
        if requestTimeout <= .zero { throw HTTPServerError("requestTimeout must be positive") }
        if handlerDeadline <= .zero { throw HTTPServerError("handlerDeadline must be positive") }
        if threadCount < 1 || threadCount > 64 { throw HTTPServerError("threadCount must be 1…64, got \(threadCount)") }
    }

    /// The most connections, out of `limit` (``connectionLimit`` or
    /// ``perAddressConnectionLimit``), that may be still receiving their request at once: a
    /// tenth of the limit (at least one connection) is kept for callers that send promptly.
    public static func receivingConnectionCap(of limit: Int) -> Int {
        max(1, limit - max(1, limit / 10))
    }

    /// ``idleTimeout`` in whole seconds, rounded up (libmicrohttpd's unit).
    var idleTimeoutSeconds: UInt32 {
        let (seconds, attoseconds) = idleTimeout.components
        let whole = seconds + (attoseconds > 0 ? 1 : 0)
        return UInt32(clamping: whole)
    }
}
