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
            guard daemons.lifecycle == .running, let first = daemons.current.first.flatMap({ OpaquePointer(bitPattern: $0) }) else {
                throw HTTPServerError("tls: the server is stopping")
            }
            let listener = pb_mhd_listen_socket(first)
            guard listener >= 0, let fresh = Self.startDaemons(core: core, flags: flags, listener: listener, tls: certificate, loops: loops[...]) else {
                throw HTTPServerError("tls: could not start serving the new certificate; the old one stays (errno \(errno))")
            }
            for (old, loop) in zip(daemons.current, loops) {
                let returned = Self.quiesceDaemon(old, on: loop)
                daemons.retiring.append(RetiringDaemon(daemon: old, loop: loop, listener: returned, deadline: .now + grace))
            }
            daemons.current = fresh
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
            let retiring = daemons.withLock { $0.retiring }
            if retiring.isEmpty { return }
            var finished: [UInt] = []
            for old in retiring {
                let open = await old.loop.run { OpaquePointer(bitPattern: old.daemon).map { pb_mhd_open_connections($0) } ?? 0 }
                if open == 0 || (now >= old.deadline && idle) { finished.append(old.daemon) }
            }
            let done = daemons.withLock { daemons -> [RetiringDaemon] in
                let done = daemons.retiring.filter { finished.contains($0.daemon) }
                daemons.retiring.removeAll { finished.contains($0.daemon) }
                return done
            }
            for old in done { Self.stop(old) }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Stops a quiesced daemon and closes the listening socket it handed back (after the stop:
    /// its threads may still hold it until then).
    static func stop(_ old: RetiringDaemon) {
        stopDaemon(old.daemon, on: old.loop)
        if old.listener >= 0 { close(old.listener) }
    }

    /// Whether this server serves HTTPS.
    public var servesTLS: Bool { flags & MHD_USE_TLS.rawValue != 0 }
}
