import CMicroHTTPD
import Glibc
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd driven by our own event loops: one ``EventLoop`` thread
/// per ``HTTPServerConfiguration/threadCount`` (default: one per core), each polling one daemon
/// (epoll, no internal polling thread) that accepts on the shared listening socket; request
/// bodies read in full (up to a limit) before the async ``HTTPHandler`` runs as a task on the
/// loop that read the request (so it runs on that thread to its end, resumed there after every
/// wait), each handler held to a deadline; plain HTTP, or HTTPS through libmicrohttpd's GnuTLS
/// whose certificate can be replaced while it runs (``replaceCertificate(_:)``).
///
/// While a handler runs its connection is suspended, so it costs no polling. The server starts
/// in `init` and runs until ``stop(gracePeriod:)`` or `deinit`.
public final class HTTPServer: Sendable {
    /// The address the server is bound to.
    public let host: String
    /// The port the server is bound to (the real one when the configuration asked for `0`).
    public let port: UInt16

    enum Lifecycle { case running, stopping, stopped }

    /// The daemons behind the listening socket: the ones accepting (one per loop, in the order
    /// of ``loops``), and those a certificate replacement quiesced. Each ``MHDDaemon`` stops
    /// itself once (at the latest when released).
    struct Daemons {
        var current: [MHDDaemon]
        var retiring: [RetiringDaemon] = []
        var lifecycle = Lifecycle.running
    }

    /// A quiesced daemon finishing its connections on its loop, stopped once it has none left
    /// or at `deadline` while no handler runs.
    struct RetiringDaemon {
        var daemon: MHDDaemon
        var deadline: ContinuousClock.Instant
    }

    let core: HTTPServerCore
    let daemons: Mutex<Daemons>
    /// The threads that poll the daemons and run the handlers' tasks.
    let loops: [EventLoop]
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
        var flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
        if Int32(address.ss_family) == AF_INET6 { flags |= MHD_USE_IPv6.rawValue }
        if configuration.tls != nil {
            guard TLSCertificate.serverSupportIsAvailable else {
                throw HTTPServerError("tls: the installed libmicrohttpd was built without TLS support")
            }
            flags |= MHD_USE_TLS.rawValue
        }
        let core = HTTPServerCore(configuration: configuration, handler: handler)
        let loops = (0..<configuration.threadCount).map { EventLoop(name: "pb-http-loop-\($0)") }
        let first = withUnsafePointer(to: &address) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                MHDDaemon(core: core, flags: UInt32(flags), bindAddress: socketAddress, listenSocket: -1, tls: configuration.tls, share: 0, loop: loops[0])
            }
        }
        guard let first else {
            for loop in loops { loop.shutdown() }
            throw HTTPServerError("could not listen on \(configuration.host):\(configuration.port) (errno \(errno))")
        }
        guard let others = Self.startDaemons(core: core, flags: UInt32(flags), listener: first.listenSocket, tls: configuration.tls, loops: loops.dropFirst()) else {
            first.stop()
            for loop in loops { loop.shutdown() }
            throw HTTPServerError("could not start \(configuration.threadCount) loops on \(configuration.host):\(configuration.port) (errno \(errno))")
        }
        let port = first.boundPort
        self.core = core
        self.flags = UInt32(flags)
        self.host = configuration.host
        self.loops = loops
        self.daemons = Mutex(Daemons(current: [first] + others))
        self.port = port
    }

    deinit {
        // Not stopped gracefully: answer running handlers 503 and stop at once.
        let wasRunning = daemons.withLock { daemons in
            defer { daemons.lifecycle = .stopped }
            return daemons.lifecycle == .running
        }
        if wasRunning { halt() }
        core.workers.close()
        core.tasks.cancelAll()
    }

    /// Stops gracefully: stops accepting connections, answers new requests on open connections
    /// with 503, waits up to `gracePeriod` for requests in flight to be answered, answers the
    /// rest with 503 (through ``HTTPServerConfiguration/exit`` when there is one, waiting up
    /// to ``stopRecordWait`` for it to record them), then stops the daemons and their loops,
    /// ends the handler tasks waiting for a request (``HandlerWorkers/close()``),
    /// cancels the server's tasks still running (``ServerTasks``) and waits up to
    /// ``stopRecordWait`` for them to end. Returns at once if already stopping or stopped.
    public func stop(gracePeriod: Duration = .seconds(5)) async {
        let current = daemons.withLock { daemons -> [MHDDaemon]? in
            guard daemons.lifecycle == .running else { return nil }
            daemons.lifecycle = .stopping
            return daemons.current
        }
        guard let current else { return }
        // An idle server stops at once; stopped unquiesced, a daemon closes its socket itself.
        let idle = core.openRequests == 0
        if !idle { for daemon in current { daemon.quiesce() } }
        core.beginDraining()
        if !idle {
            await waitForOpenRequests(within: gracePeriod)
            await answerRunningThroughExit()
        }
        halt()
        core.workers.close()
        core.tasks.cancelAll()
        _ = await core.tasks.ended(within: Self.stopRecordWait)
        daemons.withLock { $0.lifecycle = .stopped }
    }

    /// How long a stop waits for the exit to record its `503`s to the handlers still running
    /// before it answers them without it (``HTTPServerConfiguration/exit``): more than the
    /// 1.5 s an answer waits for its audit completion, retries included.
    static let stopRecordWait: Duration = .seconds(2)

    /// Answers running handlers with 503 without the exit, gives their connections a moment
    /// to send it, stops the daemons (which closes every connection and releases every
    /// exchange) and their loops.
    private func halt() {
        core.abandonRunning()
        let clock = ContinuousClock()
        let flushDeadline = clock.now.advanced(by: .milliseconds(500))
        while core.openRequests > 0, clock.now < flushDeadline { usleep(2_000) }
        let (current, retiring) = daemons.withLock { daemons in
            defer { daemons.retiring = [] }
            return (daemons.current, daemons.retiring)
        }
        for daemon in current { daemon.stop() }
        for old in retiring { old.daemon.stop() }
        core.deadlines.stop()
        core.connections.stop()
        for loop in loops { loop.shutdown() }
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
