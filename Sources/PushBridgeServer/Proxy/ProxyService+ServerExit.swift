import PushBridgeCore

/// The HTTP server's exit (``HTTPServerConfiguration/exit``): every request gets its id and
/// arrival time at its request line, and every answer the server makes itself leaves through
/// the pipeline's exit, with its audit row, request id, access line and request metric.
extension ProxyService: HTTPServerExit {
    /// A ticket with a new request id, stamped by the pipeline's clock.
    public func arrived() -> HTTPRequestTicket {
        let now = deps.clock()
        return HTTPRequestTicket(id: RequestID.make(nowMs: now), startedMs: now)
    }

    /// Takes `failure` through the exit (``HTTPServerFailure/outcome(_:now:)``); a handler
    /// overtaken by it waits until this has written its record.
    public func answer(_ failure: HTTPServerFailure, to request: HTTPRequest) async -> HTTPResponse {
        let call = Call(request, now: deps.clock())
        let response = await leave(call, failure.outcome(call, now: deps.clock()))
        request.ticket?.markServerRecorded()
        return response
    }
}
