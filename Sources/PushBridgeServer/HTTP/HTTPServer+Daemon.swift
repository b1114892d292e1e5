import Glibc

extension HTTPServer {
    /// Starts one daemon per loop accepting on duplicates of `listener`, each polled by its
    /// loop with the share of the connection limit of its loop's index; nil (none left running:
    /// the ones started are stopped as they are released) if one cannot start.
    static func startDaemons(core: HTTPServerCore, flags: UInt32, listener: Int32, tls: TLSCertificate?, loops: ArraySlice<EventLoop>) -> [MHDDaemon]? {
        var started: [MHDDaemon] = []
        for (index, loop) in zip(loops.indices, loops) {
            let copy = dup(listener)
            guard copy >= 0, let daemon = MHDDaemon(core: core, flags: flags, bindAddress: nil, listenSocket: copy, tls: tls, share: index, loop: loop) else {
                if copy >= 0 { close(copy) }
                for daemon in started { daemon.stop() }
                return nil
            }
            started.append(daemon)
        }
        return started
    }
}
