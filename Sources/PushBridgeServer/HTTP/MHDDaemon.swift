import CMicroHTTPD
import Glibc
import Synchronization

/// One libmicrohttpd daemon (`MHD_Daemon *`) and the event loop that polls it: started and
/// attached to its loop in `init`, stopped exactly once, by ``stop()`` (idempotent) or at the
/// latest in `deinit`. It is the only place that starts, quiesces or stops a daemon.
///
/// It keeps its ``HTTPServerCore`` alive until it is stopped: libmicrohttpd's callbacks reach
/// the core through an unretained pointer.
///
/// Why `@unchecked Sendable` is sound: the daemon pointer is immutable and libmicrohttpd is
/// only driven on ``loop``'s thread (every use below goes through the loop, or runs before the
/// daemon is attached); whether it is stopped and the listening socket a quiesce handed back
/// are in a `Mutex`.
final class MHDDaemon: @unchecked Sendable {
    /// The loop that polls the daemon (`MHD_run`) and on whose thread it is stopped.
    let loop: EventLoop
    private let pointer: OpaquePointer
    private let core: HTTPServerCore

    /// What happened to the daemon since it started.
    private struct Life {
        var stopped = false
        /// The listening socket ``quiesce()`` got back (-1: none), closed after the stop.
        var returnedListener: Int32 = -1
    }

    private let life = Mutex(Life())

    /// Starts a daemon on `core` for external polling, bound to `bindAddress` or accepting on
    /// `listenSocket` when that is not -1 (the daemon owns it from then on), serving `tls` when
    /// set, with the share of the connection limit of loop number `share`, and has `loop` poll
    /// it. Nil when libmicrohttpd cannot start it (errno says why).
    init?(core: HTTPServerCore, flags: UInt32, bindAddress: UnsafePointer<sockaddr>?, listenSocket: Int32,
          tls: TLSCertificate?, share: Int, loop: EventLoop) {
        guard let pointer = Self.start(core: core, flags: flags, bindAddress: bindAddress, listenSocket: listenSocket, tls: tls, share: share) else {
            return nil
        }
        self.pointer = pointer
        self.core = core
        self.loop = loop
        let fd = pb_mhd_epoll_fd(pointer)
        // The loop's source holds the pointer, not this object: ``stop()`` detaches it first.
        nonisolated(unsafe) let polled = pointer
        loop.execute {
            let pointer = polled
            loop.attach(fd: fd, timeout: { pb_mhd_timeout_ms(pointer) }, run: { _ = MHD_run(pointer) })
        }
    }

    deinit {
        stop()
    }

    /// The listening socket the daemon accepts on (-1 once quiesced).
    var listenSocket: Int32 { pb_mhd_listen_socket(pointer) }

    /// The port the daemon is bound to.
    var boundPort: UInt16 { pb_mhd_bound_port(pointer) }

    /// Whether ``stop()`` ran.
    var isStopped: Bool { life.withLock { $0.stopped } }

    /// Stops accepting new connections (those it has are still served); the listening socket
    /// it hands back is closed when the daemon stops. Runs on the loop's thread.
    func quiesce() {
        nonisolated(unsafe) let pointer = self.pointer
        let returned = loop.runAndWait { MHD_quiesce_daemon(pointer) }
        life.withLock { $0.returnedListener = returned }
    }

    /// Connections the daemon still has, counted on the loop's thread.
    func openConnections() async -> UInt32 {
        nonisolated(unsafe) let pointer = self.pointer
        return await loop.run { pb_mhd_open_connections(pointer) }
    }

    /// Stops the daemon on its loop's thread (libmicrohttpd's external polling is not
    /// thread-safe) after the loop stops polling it, and waits for that; then closes the
    /// listening socket a quiesce handed back. Only the first call does anything.
    func stop() {
        let first = life.withLock { life in
            defer { life.stopped = true }
            return !life.stopped
        }
        guard first else { return }
        nonisolated(unsafe) let pointer = self.pointer
        let loop = self.loop
        loop.runAndWait {
            if loop.inLoop { loop.detach(fd: pb_mhd_epoll_fd(pointer)) }
            MHD_stop_daemon(pointer)
        }
        // After the stop: its threads may hold the socket until then.
        let listener = life.withLock { $0.returnedListener }
        if listener >= 0 { close(listener) }
    }

    /// Starts the daemon itself; see `init`.
    private static func start(core: HTTPServerCore, flags: UInt32, bindAddress: UnsafePointer<sockaddr>?, listenSocket: Int32,
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
}
