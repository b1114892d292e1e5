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
            guard daemons.lifecycle == .running, let first = daemons.current.first else {
                throw HTTPServerError("tls: the server is stopping")
            }
            let listener = first.listenSocket
            guard listener >= 0, let fresh = Self.startDaemons(core: core, flags: flags, listener: listener, tls: certificate, loops: loops[...]) else {
                throw HTTPServerError("tls: could not start serving the new certificate; the old one stays (errno \(errno))")
            }
            for old in daemons.current {
                old.quiesce()
                daemons.retiring.append(RetiringDaemon(daemon: old, deadline: .now + grace))
            }
            daemons.current = fresh
        }
        core.tasks.spawn { [weak self] in await self?.retireQuiescedDaemons() }
    }

    /// Stops each quiesced daemon once it has no connection left, or once its deadline has
    /// passed while no handler runs (libmicrohttpd must not stop a daemon holding a suspended
    /// connection); returns when none is left (or the server is gone).
    func retireQuiescedDaemons() async {
        while true {
            let now = ContinuousClock.now
            let idle = core.runningHandlers == 0
            let retiring = daemons.withLock { $0.retiring }
            if retiring.isEmpty { return }
            var finished: [ObjectIdentifier] = []
            for old in retiring {
                let open = await old.daemon.openConnections()
                if open == 0 || (now >= old.deadline && idle) { finished.append(ObjectIdentifier(old.daemon)) }
            }
            let done = daemons.withLock { daemons -> [RetiringDaemon] in
                let done = daemons.retiring.filter { finished.contains(ObjectIdentifier($0.daemon)) }
                daemons.retiring.removeAll { finished.contains(ObjectIdentifier($0.daemon)) }
                return done
            }
            for old in done { old.daemon.stop() }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Whether this server serves HTTPS.
    public var servesTLS: Bool { flags & MHD_USE_TLS.rawValue != 0 }
}
