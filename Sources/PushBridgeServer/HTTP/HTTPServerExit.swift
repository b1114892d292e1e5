/// Where the server sends every answer it makes itself, so that those leave by the same exit
/// as the handler's answers (in PushBridge: the proxy's audit row, request id, access line and
/// request metric, ``ProxyService``). Set it as ``HTTPServerConfiguration/exit``.
public protocol HTTPServerExit: Sendable {
    /// A request line arrived: the ticket its request carries from now on
    /// (``HTTPRequest/ticket``), with the id and arrival time every answer to it uses.
    func arrived() -> HTTPRequestTicket

    /// The server answers `failure` to `request` itself: a body over the limit, a head
    /// refused by ``HTTPHeadRules``, a request that came in while draining, a handler past its
    /// deadline or still running when a stop's grace period ends (the server claimed
    /// ``HTTPRequestTicket`` first), or what libmicrohttpd
    /// refused with its own answer (``HTTPServerFailure/refusedByLibrary(_:status:)``).
    /// Returns the answer to send once it is recorded; for libmicrohttpd's own refusals the
    /// answer was already sent and the result is not used.
    func answer(_ failure: HTTPServerFailure, to request: HTTPRequest) async -> HTTPResponse
}
