import CMicroHTTPD
import Glibc
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: epoll with a small pool of polling threads, request
/// bodies read in full (up to a limit) before the async ``HTTPHandler`` runs, each handler held
/// to a deadline; plain HTTP, or HTTPS through libmicrohttpd's GnuTLS whose certificate can be
/// replaced while it runs (``replaceCertificate(_:)``).
///
/// While a handler runs its connection is suspended, so it costs no polling. The server starts
/// in `init` and runs until ``stop(gracePeriod:)`` or `deinit`.
public final class HTTPServer: Sendable {
    /// The address the server is bound to.
    public let host: String
    /// The port the server is bound to (the real one when the configuration asked for `0`).
    public let port: UInt16

    enum Lifecycle { case running, stopping, stopped }

    /// The daemons behind the listening socket, as bit patterns (a raw pointer is not
    /// `Sendable`): the one accepting, and those a certificate replacement quiesced, each
    /// stopped once by whoever removes it from here.
    struct Daemons {
        var current: UInt
        var retiring: [RetiringDaemon] = []
        var lifecycle = Lifecycle.running
    }

    /// A quiesced daemon finishing its connections, with the listening socket it returned.
    struct RetiringDaemon {
        var daemon: UInt
        var listener: Int32
        var deadline: ContinuousClock.Instant
    }

    let core: HTTPServerCore
    let daemons: Mutex<Daemons>
    /// The MHD_USE_* flags every daemon of this server starts with.
    let flags: UInt32

    /// Binds `configuration.host:configuration.port` and starts serving with `handler`, over
    /// TLS when `configuration.tls` is set. Throws ``HTTPServerError`` for an invalid
    /// configuration, a libmicrohttpd built without TLS, or a failed bind.
    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(), handler: @escaping HTTPHandler) throws(HTTPServerError) {
        try configuration.validate()
        var address = sockaddr_storage()
        let addressLength = pb_mhd_make_address(configuration.host, configuration.port, &address)
        guard addressLength > 0 else {
            throw HTTPServerError("host must be a numeric IPv4 or IPv6 address, got \(configuration.host)")
        }
        var flags = MHD_USE_EPOLL.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
        if Int32(address.ss_family) == AF_INET6 { flags |= MHD_USE_IPv6.rawValue }
        if configuration.tls != nil {
            guard TLSCertificate.serverSupportIsAvailable else {
                throw HTTPServerError("tls: the installed libmicrohttpd was built without TLS support")
            }
            flags |= MHD_USE_TLS.rawValue
        }
        let core = HTTPServerCore(configuration: configuration, handler: handler)
        let daemon = withUnsafePointer(to: &address) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                Self.startDaemon(core: core, flags: UInt32(flags), bindAddress: socketAddress, listenSocket: -1, tls: configuration.tls)
            }
        }
        guard let daemon else {
            throw HTTPServerError("could not listen on \(configuration.host):\(configuration.port) (errno \(errno))")
        }
        self.core = core
        self.flags = UInt32(flags)
        self.host = configuration.host
        self.daemons = Mutex(Daemons(current: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(daemon)))))
        self.port = pb_mhd_bound_port(daemon)
    }

    /// Starts one daemon on `core`: bound to `bindAddress`, or accepting on `listenSocket`
    /// when it is not -1; serving `tls` when set.
    static func startDaemon(core: HTTPServerCore, flags: UInt32, bindAddress: UnsafePointer<sockaddr>?, listenSocket: Int32,
                            tls: TLSCertificate?) -> OpaquePointer? {
        let configuration = core.configuration
        func start(_ chain: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?, _ priorities: UnsafePointer<CChar>?) -> OpaquePointer? {
            var options = pb_mhd_options(
                flags: flags,
                bind_address: bindAddress,
                connection_limit: UInt32(configuration.connectionLimit),
                // Enforced by ConnectionWatch, which does not count connections it is closing.
                per_ip_connection_limit: 0,
                connection_memory_limit: configuration.headerMemoryBytes,
                connection_timeout_seconds: configuration.idleTimeoutSeconds,
                thread_pool_size: UInt32(configuration.threadCount),
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

    deinit {
        // Not stopped gracefully: answer running handlers 503 and stop at once.
        let wasRunning = daemons.withLock { daemons in
            defer { daemons.lifecycle = .stopped }
            return daemons.lifecycle == .running
        }
        if wasRunning { halt() }
    }

    /// Stops gracefully: stops accepting connections, answers new requests on open connections
    /// with 503, waits up to `gracePeriod` for requests in flight to be answered, answers the
    /// rest with 503 (through ``HTTPServerConfiguration/exit`` when there is one, waiting up
    /// to ``stopRecordWait`` for it to record them), then stops the daemon. Returns at once if
    /// already stopping or stopped.
    public func stop(gracePeriod: Duration = .seconds(5)) async {
        let daemon = daemons.withLock { daemons -> OpaquePointer? in
            guard daemons.lifecycle == .running else { return nil }
            daemons.lifecycle = .stopping
            return OpaquePointer(bitPattern: daemons.current)
        }
        guard let daemon else { return }
        // An idle server stops at once: quiescing a thread-pool daemon that is stopped right
        // after races its workers' own removal of the listening socket from their epoll sets,
        // which libmicrohttpd answers with a panic. Stopped unquiesced, it closes the socket itself.
        let idle = core.openRequests == 0
        let listener = idle ? -1 : MHD_quiesce_daemon(daemon)
        core.beginDraining()
        if !idle {
            await waitForOpenRequests(within: gracePeriod)
            await answerRunningThroughExit()
        }
        halt()
        if listener >= 0 { close(listener) }
        daemons.withLock { $0.lifecycle = .stopped }
    }

    /// How long a stop waits for the exit to record its `503`s to the handlers still running
    /// before it answers them without it (``HTTPServerConfiguration/exit``): more than the
    /// 1.5 s an answer waits for its audit completion, retries included.
    static let stopRecordWait: Duration = .seconds(2)

    /// Answers running handlers with 503 without the exit, gives their connections a moment
    /// to send it, and stops the daemons (which closes every connection and releases every
    /// exchange).
    private func halt() {
        core.abandonRunning()
        let clock = ContinuousClock()
        let flushDeadline = clock.now.advanced(by: .milliseconds(500))
        while core.openRequests > 0, clock.now < flushDeadline { usleep(2_000) }
        let (current, retiring) = daemons.withLock { daemons in
            defer { daemons.retiring = [] }
            return (daemons.current, daemons.retiring)
        }
        if let daemon = OpaquePointer(bitPattern: current) { MHD_stop_daemon(daemon) }
        for old in retiring { Self.stop(old) }
        core.deadlines.stop()
        core.connections.stop()
    }

    /// Hands the handlers still running to the exit for their 503
    /// (``HTTPServerCore/answerRunningThroughExit()``) and waits up to ``stopRecordWait`` for
    /// their records; ``halt()`` answers the rest without it.
    private func answerRunningThroughExit() async {
        let recording = core.answerRunningThroughExit()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: Self.stopRecordWait)
        while recording.contains(where: { !$0.isDecided }), clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Polls until no request is open or `gracePeriod` has passed.
    private func waitForOpenRequests(within gracePeriod: Duration) async {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: gracePeriod)
        while core.openRequests > 0, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
