import CMicroHTTPD

/// The `@convention(c)` callbacks libmicrohttpd calls. Their `cls` is an unretained
/// ``HTTPServerCore`` (its ``MHDDaemon`` keeps it alive until the daemon is stopped); `*req_cls`
/// is a retained ``HTTPExchange`` from the URI callback until the completion callback.
enum HTTPServerCallbacks {
    /// Called with the raw request target (query included) when a request line arrives; its
    /// result becomes the request's `*req_cls`.
    static let uriLogger: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { cls, uri, connection in
        guard let cls else { return nil }
        let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
        if let connection { core.connections.requestLineArrived(MHDConnection.key(connection)) }
        let exchange = core.opened(target: uri.map { String(cString: $0) } ?? "/")
        return Unmanaged.passRetained(exchange).toOpaque()
    }

    /// The access handler: headers, then body chunks, then the end of the body, then (after a
    /// resume) once more to queue the answer.
    static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, _, method, version, upload, uploadSize, requestContext in
        guard let cls, let connection, let uploadSize, let requestContext, let exchangePointer = requestContext.pointee else {
            return .NO
        }
        let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(exchangePointer).takeUnretainedValue()
        return core.access(
            connection: connection,
            method: method.map { String(cString: $0) } ?? "GET",
            version: version.map { String(cString: $0) } ?? "HTTP/1.1",
            head: method,
            upload: upload,
            uploadSize: uploadSize,
            exchange: exchange)
    }

    /// The request is finished (answered, failed or shut down): release its exchange.
    static let completed: MHD_RequestCompletedCallback = { cls, connection, requestContext, termination in
        guard let cls, let requestContext, let exchangePointer = requestContext.pointee else { return }
        requestContext.pointee = nil
        let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
        if let connection { core.connections.completed(MHDConnection.key(connection)) }
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(exchangePointer).takeRetainedValue()
        // Ended on an error with an answer queued: libmicrohttpd's own, if the handler never answered.
        var refusal: (status: Int, remote: String)?
        if termination == .REQUEST_TERMINATED_WITH_ERROR, let connection, case let status = Int(pb_mhd_connection_status(connection)), status > 0 {
            refusal = (status, MHDConnection.remoteAddress(of: connection))
        }
        core.closed(exchange, refusedByLibrary: refusal)
    }

    /// A connection was accepted or closed: keep ``ConnectionWatch`` up to date.
    static let connectionNotifier: MHD_NotifyConnectionCallback = { cls, connection, _, code in
        guard let cls, let connection else { return }
        let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
        let key = MHDConnection.key(connection)
        if code == .CONNECTION_NOTIFY_STARTED {
            core.connections.opened(key, socket: pb_mhd_connection_fd(connection), address: MHDConnection.remoteAddress(of: connection))
        } else if code == .CONNECTION_NOTIFY_CLOSED {
            // Without TLS, bytes written where no request line ever arrived are libmicrohttpd's own refusal.
            if core.connections.closed(key), core.configuration.tls == nil {
                core.recordRequestLineRefusal(remote: MHDConnection.remoteAddress(of: connection))
            }
        }
    }
}
