import Glibc

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
    /// ``exit`` (or ``failureResponder``) without calling the handler: at once when `Content-Length` declares
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
    /// (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`); a request whose head does not fit is refused by
    /// libmicrohttpd itself, with its own HTML page (only recorded, through
    /// ``exit``, as ``HTTPServerFailure/refusedByLibrary(_:status:)``). Keep it above
    /// ``maxHeadBytes`` so that the server's own 431 comes first. Default 16 KiB
    /// (libmicrohttpd zeroes the whole pool whenever a connection is kept alive, so it is
    /// resident for every kept-alive connection).
    public var headerMemoryBytes: Int = 16 * 1024
    /// The largest request head (request line, headers and the blank line) the server takes,
    /// in bytes; a larger one that still fits ``headerMemoryBytes`` is answered `431` through
    /// ``exit`` (or ``failureResponder``). `nil`: no limit of the server's own. Default 12 KiB. (At or
    /// above ``headerMemoryBytes`` libmicrohttpd refuses large heads first.)
    public var maxHeadBytes: Int? = 12 * 1024
    /// The longest request target (path and query) the server takes, in bytes; a longer one is
    /// answered `414` through ``exit`` (or ``failureResponder``). `nil`: no limit of the server's own.
    /// Default 8 KiB.
    public var maxRequestTargetBytes: Int? = 8 * 1024
    /// How long a connection may sit idle (no bytes in either direction, handler not running)
    /// before it is closed (`MHD_OPTION_CONNECTION_TIMEOUT`, whole seconds, rounded up).
    /// Answers on a connection that stays open advertise less
    /// (``advertisedKeepAliveSeconds``), so a client that honours `Keep-Alive: timeout=`
    /// never reuses a connection the server is closing. Default 30 s.
    public var idleTimeout: Duration = .seconds(30)
    /// How long a connection may take to deliver a whole request, head and body, counted from
    /// its accept (or, on a kept-alive connection, from its request line, and at most
    /// ``idleTimeout`` plus this from the previous answer). A connection past it is closed
    /// without an answer, however steadily it sends; see ``ConnectionWatch``. Default 10 s.
    public var requestTimeout: Duration = .seconds(10)
    /// How long a handler may run. When it passes, the caller is answered `504` through
    /// ``exit`` (or ``failureResponder`` without one) and the handler's task is cancelled: a
    /// suspended connection never waits forever (at most twice this, see ``exit``). Default 30 s.
    public var handlerDeadline: Duration = .seconds(30)
    /// The event loops the server runs (``EventLoop``): threads that each poll one
    /// libmicrohttpd daemon on the shared listening socket and run the handlers of the
    /// requests it reads. Default: one per core (at most 64).
    public var threadCount: Int = HTTPServerConfiguration.coreCount

    /// The cores this process may run on (at least 1, at most 64).
    public static var coreCount: Int { min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), 64) }
    /// Serve HTTPS with this certificate (libmicrohttpd's TLS, TLS 1.2 and 1.3 only), or plain
    /// HTTP when `nil`. Replace it on a running server with ``HTTPServer/replaceCertificate(_:)``.
    /// Default `nil`.
    public var tls: TLSCertificate?
    /// Renders the answers the server makes itself when they do not go through ``exit``: all of
    /// them (`413`, `400`, `415`, `431`, `414`, `501`, `504`, `503`) without an exit; with one,
    /// only when the exit is stuck: the `504` to a handler still in its exit past a second
    /// deadline, and the `503` to a handler still running at a stop whose exit has not answered
    /// within ``HTTPServer/stopRecordWait``. Default:
    /// ``HTTPServerFailure/jsonResponse(_:for:)``.
    public var failureResponder: @Sendable (HTTPServerFailure, HTTPRequest) -> HTTPResponse = HTTPServerFailure.jsonResponse
    /// The one hook for every answer the server makes itself: each request gets its ticket
    /// (id and arrival time) from it at its request line, and a `413`, a head refused by
    /// ``HTTPHeadRules``, a `503` while draining, a handler past ``handlerDeadline`` and a
    /// handler still running when a stop's grace period ends are
    /// answered with what ``HTTPServerExit/answer(_:to:)`` returns, once it returns (the
    /// connection stays suspended meanwhile, under ``handlerDeadline``), so the proxy's audit
    /// row and access line are written before the caller can see the answer. A request
    /// libmicrohttpd refused with its own answer is handed to it too, after the fact. At a
    /// handler's deadline the server claims the request's ``HTTPRequestTicket``; if the handler
    /// claimed it first (it is leaving by its exit), the server gives it one more deadline,
    /// and past that answers through ``failureResponder`` without the exit.
    /// Default nil: refusals are rendered by ``failureResponder`` and sent at once.
    public var exit: (any HTTPServerExit)?

    /// A configuration with every default.
    public init() {}

    /// Checks the values, throwing ``HTTPServerError`` naming the first bad field.
    public func validate() throws(HTTPServerError) {
        if maxBodyBytes < 0 { throw HTTPServerError("maxBodyBytes must be 0 or more, got \(maxBodyBytes)") }
        if connectionLimit < 1 || connectionLimit > Int(UInt32.max) { throw HTTPServerError("connectionLimit must be at least 1, got \(connectionLimit)") }
        if perAddressConnectionLimit < 0 || perAddressConnectionLimit > Int(UInt32.max) { throw HTTPServerError("perAddressConnectionLimit must be 0 or more, got \(perAddressConnectionLimit)") }
        if headerMemoryBytes < 1024 { throw HTTPServerError("headerMemoryBytes must be at least 1024, got \(headerMemoryBytes)") }
        if let maxHeadBytes, maxHeadBytes < 256 { throw HTTPServerError("maxHeadBytes must be at least 256, got \(maxHeadBytes)") }
        if let maxRequestTargetBytes, maxRequestTargetBytes < 16 {
            throw HTTPServerError("maxRequestTargetBytes must be at least 16, got \(maxRequestTargetBytes)")
        }
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

    /// What answers on a connection kept alive advertise as `Keep-Alive: timeout=`: the idle
    /// timeout less a margin (2 s from 4 s up, 1 s below), so a client that honours it stops
    /// reusing the connection before the server closes it; nil (no header) when the idle
    /// timeout is 0 (never) or under 2 s.
    public var advertisedKeepAliveSeconds: Int? {
        let idle = Int(idleTimeoutSeconds)
        let advertised = idle - (idle >= 4 ? 2 : 1)
        return idle == 0 || advertised < 1 ? nil : advertised
    }

    /// ``idleTimeout`` in whole seconds, rounded up (libmicrohttpd's unit).
    var idleTimeoutSeconds: UInt32 {
        let (seconds, attoseconds) = idleTimeout.components
        let whole = seconds + (attoseconds > 0 ? 1 : 0)
        return UInt32(clamping: whole)
    }
}
