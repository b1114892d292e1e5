import CMicroHTTPD
import Glibc

extension HTTPServer {
    /// Starts one daemon on `core` for external polling (its epoll descriptor goes to an
    /// ``EventLoop``, see ``attach(_:to:)``): bound to `bindAddress`, or accepting on
    /// `listenSocket` when it is not -1; serving `tls` when set. Each of the
    /// ``HTTPServerConfiguration/threadCount`` daemons gets its share of the connection limit,
    /// as libmicrohttpd shares it between the threads of a pool.
    static func startDaemon(core: HTTPServerCore, flags: UInt32, bindAddress: UnsafePointer<sockaddr>?, listenSocket: Int32,
                            tls: TLSCertificate?, share index: Int) -> OpaquePointer? {
        let configuration = core.configuration
        let loops = configuration.threadCount
        let limit = configuration.connectionLimit / loops + (index < configuration.connectionLimit % loops ? 1 : 0)
        func start(_ chain: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?, _ priorities: UnsafePointer<CChar>?) -> OpaquePointer? {
            var options = pb_mhd_options(
                flags: flags,
                bind_address: bindAddress,
                connection_limit: UInt32(max(limit, 1)),
                // Enforced by ConnectionWatch, which does not count connections it is closing.
                per_ip_connection_limit: 0,
                connection_memory_limit: configuration.headerMemoryBytes,
                connection_timeout_seconds: configuration.idleTimeoutSeconds,
                thread_pool_size: 0,
                listen_socket: listenSocket,
                tls_certificate_chain: chain,
                tls_private_key: key,
                tls_priorities: priorities)
            return pb_mhd_start_daemon(
                &options, HTTPServerCallbacks.accessHandler, HTTPServerCallbacks.completed,
                HTTPServerCallbacks.uriLogger, HTTPServerCallbacks.connectionNotifier, Unmanaged.passUnretained(core).toOpaque())
        }
        guard let tls else { return start(nil, nil, nil) }
        // NUL-terminated copies that live until the daemon has loaded them (GnuTLS copies them).
        let chain = tls.chainPEM.map { CChar(bitPattern: $0) } + [0]
        var key = tls.keyPEM.map { CChar(bitPattern: $0) } + [0]
        defer { for index in key.indices { key[index] = 0 } }
        return chain.withUnsafeBufferPointer { chain in
            key.withUnsafeBufferPointer { key in
                TLSCertificate.priorities.withCString { priorities in
                    start(chain.baseAddress, key.baseAddress, priorities)
                }
            }
        }
    }

    /// Starts one daemon per loop accepting on duplicates of `listener`, attached to their
    /// loops (each with the share of the connection limit of its loop's index); nil (none left
    /// running) if one cannot start.
    static func startDaemons(core: HTTPServerCore, flags: UInt32, listener: Int32, tls: TLSCertificate?, loops: ArraySlice<EventLoop>) -> [UInt]? {
        var started: [OpaquePointer] = []
        for index in loops.indices {
            let copy = dup(listener)
            guard copy >= 0, let daemon = startDaemon(core: core, flags: flags, bindAddress: nil, listenSocket: copy, tls: tls, share: index) else {
                if copy >= 0 { close(copy) }
                for daemon in started { MHD_stop_daemon(daemon) }
                return nil
            }
            started.append(daemon)
        }
        for (loop, daemon) in zip(loops, started) { attach(bits(daemon), to: loop) }
        return started.map(bits)
    }

    /// A daemon pointer as a bit pattern (a raw pointer is not `Sendable`).
    static func bits(_ daemon: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(daemon)))
    }

    /// Has `loop` poll the daemon `daemon`: `MHD_run` whenever its epoll descriptor is readable
    /// or its timeout (an idle connection's, or 0 with work pending) has passed.
    static func attach(_ daemon: UInt, to loop: EventLoop) {
        guard let pointer = OpaquePointer(bitPattern: daemon) else { return }
        let fd = pb_mhd_epoll_fd(pointer)
        loop.execute {
            guard let pointer = OpaquePointer(bitPattern: daemon) else { return }
            loop.attach(fd: fd, timeout: { pb_mhd_timeout_ms(pointer) }, run: { _ = MHD_run(pointer) })
        }
    }

    /// Stops the daemon `daemon` on `loop`'s thread (libmicrohttpd's external polling is not
    /// thread-safe) after the loop stops polling it, and waits for that.
    static func stopDaemon(_ daemon: UInt, on loop: EventLoop) {
        loop.runAndWait {
            guard let pointer = OpaquePointer(bitPattern: daemon) else { return }
            if loop.inLoop { loop.detach(fd: pb_mhd_epoll_fd(pointer)) }
            MHD_stop_daemon(pointer)
        }
    }

    /// Quiesces the daemon `daemon` on `loop`'s thread; returns the listening socket it hands
    /// back (-1 if none).
    static func quiesceDaemon(_ daemon: UInt, on loop: EventLoop) -> Int32 {
        loop.runAndWait {
            guard let pointer = OpaquePointer(bitPattern: daemon) else { return -1 }
            return MHD_quiesce_daemon(pointer)
        }
    }
}
