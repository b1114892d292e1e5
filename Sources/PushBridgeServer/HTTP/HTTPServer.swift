import CMicroHTTPD
import Glibc
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: epoll with a small pool of polling threads, request
/// bodies read in full (up to a limit) before the async ``HTTPHandler`` runs, each handler held
/// to a deadline.
///
/// While a handler runs its connection is suspended, so it costs no polling. The server starts
/// in `init` and runs until ``stop(gracePeriod:)`` or `deinit`.
public final class HTTPServer: Sendable {
    /// The address the server is bound to.
    public let host: String
    /// The port the server is bound to (the real one when the configuration asked for `0`).
    public let port: UInt16

    private enum Lifecycle { case running, stopping, stopped }

    private let core: HTTPServerCore
    /// The `MHD_Daemon *` as a bit pattern: a raw pointer is not `Sendable`, and the daemon is
    /// only stopped once, by whoever moves ``lifecycle`` out of `.running`.
    private let daemonBits: UInt
    private let lifecycle = Mutex(Lifecycle.running)

    /// Binds `configuration.host:configuration.port` and starts serving with `handler`.
    /// Throws ``HTTPServerError`` for an invalid configuration or a failed bind.
    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(), handler: @escaping HTTPHandler) throws(HTTPServerError) {
        try configuration.validate()
        var address = sockaddr_storage()
        let addressLength = pb_mhd_make_address(configuration.host, configuration.port, &address)
        guard addressLength > 0 else {
            throw HTTPServerError("host must be a numeric IPv4 or IPv6 address, got \(configuration.host)")
        }
        var flags = MHD_USE_EPOLL.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if Int32(address.ss_family) == AF_INET6 { flags |= MHD_USE_IPv6.rawValue }

        let core = HTTPServerCore(configuration: configuration, handler: handler)
        let daemon = withUnsafePointer(to: &address) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                var options = pb_mhd_options(
                    flags: UInt32(flags),
                    bind_address: socketAddress,
                    connection_limit: UInt32(configuration.connectionLimit),
                    per_ip_connection_limit: UInt32(configuration.perAddressConnectionLimit),
                    connection_memory_limit: configuration.headerMemoryBytes,
                    connection_timeout_seconds: configuration.idleTimeoutSeconds,
                    thread_pool_size: UInt32(configuration.threadCount))
                return pb_mhd_start_daemon(
                    &options, HTTPServerCallbacks.accessHandler, HTTPServerCallbacks.completed,
                    HTTPServerCallbacks.uriLogger, Unmanaged.passUnretained(core).toOpaque())
            }
        }
        guard let daemon else {
            throw HTTPServerError("could not listen on \(configuration.host):\(configuration.port) (errno \(errno))")
        }
        self.core = core
        self.host = configuration.host
        self.daemonBits = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(daemon)))
        self.port = pb_mhd_bound_port(daemon)
    }

    deinit {
        // Not stopped gracefully: answer running handlers 503 and stop at once.
        let wasRunning = lifecycle.withLock { state in
            defer { state = .stopped }
            return state == .running
        }
        if wasRunning { halt() }
    }

    /// Stops gracefully: stops accepting connections, answers new requests on open connections
    /// with 503, waits up to `gracePeriod` for requests in flight to be answered, answers the
    /// rest with 503, then stops the daemon. Returns at once if already stopping or stopped.
    public func stop(gracePeriod: Duration = .seconds(5)) async {
        let shouldStop = lifecycle.withLock { state in
            defer { if state == .running { state = .stopping } }
            return state == .running
        }
        guard shouldStop, let daemon else { return }
        let listener = MHD_quiesce_daemon(daemon)
        core.beginDraining()
        await waitForOpenRequests(within: gracePeriod)
        halt()
        if listener >= 0 { close(listener) }
        lifecycle.withLock { $0 = .stopped }
    }

    /// Answers running handlers with 503, gives their connections a moment to send it, and
    /// stops the daemon (which closes every connection and releases every exchange).
    private func halt() {
        core.abandonRunning()
        let clock = ContinuousClock()
        let flushDeadline = clock.now.advanced(by: .milliseconds(500))
        while core.openRequests > 0, clock.now < flushDeadline { usleep(2_000) }
        if let daemon { MHD_stop_daemon(daemon) }
        core.deadlines.stop()
    }

    /// Polls until no request is open or `gracePeriod` has passed.
    private func waitForOpenRequests(within gracePeriod: Duration) async {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: gracePeriod)
        while core.openRequests > 0, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The daemon pointer.
    private var daemon: OpaquePointer? { OpaquePointer(bitPattern: daemonBits) }
}
