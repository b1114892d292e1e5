import CMicroHTTPD
import Glibc

extension HTTPServer {
    /// Serves `certificate` from now on, without closing the listening socket or any
    /// connection. libmicrohttpd cannot swap the certificate of a running daemon, so a new
    /// daemon starts on a duplicate of the listening socket with the new certificate, then the
    /// old one is quiesced (it accepts no more) and keeps serving the connections it has until
    /// they close or the idle timeout plus the handler deadline has passed. A new connection
    /// is never refused: both daemons accept until the old one is quiesced.
    ///
    /// Throws ``HTTPServerError`` (and keeps the old certificate) when the server serves plain
    /// HTTP, is stopping, or the new daemon cannot start.
    public func replaceCertificate(_ certificate: TLSCertificate) throws(HTTPServerError) {
        guard flags & MHD_USE_TLS.rawValue != 0 else {
            throw HTTPServerError("tls: this listener serves plain HTTP; switching TLS on needs a restart")
        }
        let grace = core.configuration.idleTimeout + core.configuration.handlerDeadline
        try daemons.withLock { daemons throws(HTTPServerError) in
            guard daemons.lifecycle == .running, let current = OpaquePointer(bitPattern: daemons.current) else {
                throw HTTPServerError("tls: the server is stopping")
            }
            let listener = pb_mhd_listen_socket(current)
            let copy = listener >= 0 ? dup(listener) : -1
            guard copy >= 0 else { throw HTTPServerError("tls: cannot duplicate the listening socket (errno \(errno))") }
            guard let fresh = Self.startDaemon(core: core, flags: flags, bindAddress: nil, listenSocket: copy, tls: certificate) else {
                close(copy)
                throw HTTPServerError("tls: could not start serving the new certificate; the old one stays")
            }
            let returned = MHD_quiesce_daemon(current)
            daemons.retiring.append(RetiringDaemon(daemon: daemons.current, listener: returned, deadline: .now + grace))
            daemons.current = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(fresh)))
        }
        Task.detached { [weak self] in await self?.retireQuiescedDaemons() }
    }

    /// Stops each quiesced daemon once it has no connection left, or once its deadline has
    /// passed while no handler runs (libmicrohttpd must not stop a daemon holding a suspended
    /// connection); returns when none is left (or the server is gone).
    func retireQuiescedDaemons() async {
        while true {
            let now = ContinuousClock.now
            let idle = core.runningHandlers == 0
            let done = daemons.withLock { daemons -> [RetiringDaemon]? in
                if daemons.retiring.isEmpty { return nil }
                let finished = daemons.retiring.filter { old in
                    guard let daemon = OpaquePointer(bitPattern: old.daemon) else { return true }
                    return pb_mhd_open_connections(daemon) == 0 || (now >= old.deadline && idle)
                }
                daemons.retiring.removeAll { old in finished.contains { $0.daemon == old.daemon } }
                return finished
            }
            guard let done else { return }
            for old in done { Self.stop(old) }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Stops a quiesced daemon and closes the listening socket it handed back (after the stop:
    /// its threads may still hold it until then).
    static func stop(_ old: RetiringDaemon) {
        if let daemon = OpaquePointer(bitPattern: old.daemon) { MHD_stop_daemon(daemon) }
        if old.listener >= 0 { close(old.listener) }
    }

    /// Whether this server serves HTTPS.
    public var servesTLS: Bool { flags & MHD_USE_TLS.rawValue != 0 }
}
