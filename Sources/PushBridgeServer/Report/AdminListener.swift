import Synchronization

/// The admin listener of a running proxy, which a reload (SIGHUP) can start, stop, move or
/// re-key without a restart: it owns the admin ``HTTPServer`` (when `admin` is configured) and
/// the ``AdminService`` that answers on it. On a reload that keeps the address and the scheme,
/// the new service (new token, apps and readiness thresholds) answers the next request and a
/// TLS listener gets the new certificate; a changed address or a switch between HTTP and HTTPS
/// stops the old listener and starts the new one; no `admin` stops it; a new `admin` starts it.
/// Reloads are applied one after the other, in order.
public final class AdminListener: Sendable {
    /// The running listener and what it was started with.
    private struct Running: Sendable {
        /// The server.
        var server: HTTPServer
        /// The configured address it was started for (port 0 stays 0).
        var listen: ProxyConfiguration.ListenAddress
        /// Whether it serves HTTPS.
        var servesTLS: Bool
    }

    /// Builds the service that answers for an `admin` configuration.
    public typealias ServiceFactory = @Sendable (ProxyConfiguration.Admin, ProxyConfiguration) -> AdminService

    /// The listener now running; nil while off.
    private let running = Mutex<Running?>(nil)
    /// The service that answers the next request; nil once a reload removed `admin`.
    private let service = Mutex<AdminService?>(nil)
    /// The last reload's work: the next one waits for it, so reloads apply in order.
    private let pending = Mutex<Task<Void, Never>?>(nil)
    /// Builds the service for each configuration applied.
    private let make: ServiceFactory
    /// Where starts, stops and failures are logged (never the token).
    private let log: EventLog

    /// Starts the listener when `configuration` has `admin`; throws when it cannot listen.
    public init(_ configuration: ProxyConfiguration, log: EventLog, make: @escaping ServiceFactory) throws(HTTPServerError) {
        self.make = make
        self.log = log
        if let admin = configuration.admin {
            service.withLock { $0 = make(admin, configuration) }
            let started = try start(admin)
            running.withLock { $0 = started }
        }
    }

    /// The admin server now listening; nil when the admin listener is off.
    public var server: HTTPServer? { running.withLock { $0?.server } }

    /// Waits until every reload handed to ``apply(_:)`` so far has taken effect.
    public func settled() async { await pending.withLock { $0 }?.value }

    /// Applies a reloaded configuration's `admin` (see the type's description). Returns at once;
    /// ``settled()`` waits for a listener being stopped or started.
    public func apply(_ configuration: ProxyConfiguration) {
        let admin = configuration.admin
        service.withLock { $0 = admin.map { make($0, configuration) } }
        pending.withLock { previous in
            let before = previous
            previous = Task { [self] in
                await before?.value
                await reconcile(admin)
            }
        }
    }

    /// Stops the listener (the runtime's stop).
    public func stop() async {
        await settled()
        let old = running.withLock { current in defer { current = nil }; return current }
        await old?.server.stop(gracePeriod: .seconds(1))
    }

    /// Makes the running listener match `admin`.
    private func reconcile(_ admin: ProxyConfiguration.Admin?) async {
        let current = running.withLock { $0 }
        if let current, let admin, current.listen == admin.listen, current.servesTLS == (admin.tls != nil) {
            if let files = admin.tls { replaceCertificate(on: current.server, with: files) }
            return
        }
        if let current {
            running.withLock { $0 = nil }
            await current.server.stop(gracePeriod: .seconds(1))
            log.info("admin listener stopped", ["address": .string(current.listen.description)])
        }
        guard let admin else { return }
        do {
            let started = try start(admin)
            running.withLock { $0 = started }
        } catch {
            log.error("admin listener did not start; the admin endpoints stay off until a reload or restart that can listen",
                      ["address": .string(admin.listen.description), "error": .string(error.message)])
        }
    }

    /// A listener for `admin`, answering with whatever service is current when a request comes.
    private func start(_ admin: ProxyConfiguration.Admin) throws(HTTPServerError) -> Running {
        var http = HTTPServerConfiguration()
        http.host = admin.listen.host
        http.port = UInt16(admin.listen.port)
        // Reports and probes: one event loop is plenty.
        http.threadCount = 1
        http.tls = admin.tls?.certificate
        if let tls = http.tls { ProxyRuntime.logCertificate("serving tls", tls, listener: "admin", log: log) }
        let server = try HTTPServer(configuration: http) { [weak self] request in
            guard let current = self?.service.withLock({ $0 }) else {
                return .json(503, .object(["error": .string("the admin endpoint is being switched off by a configuration reload")]))
            }
            return await current.respond(request)
        }
        log.info("admin listener started", ["address": .string(ProxyConfiguration.ListenAddress(host: admin.listen.host, port: Int(server.port)).description)])
        return Running(server: server, listen: admin.listen, servesTLS: http.tls != nil)
    }

    /// Serves the reloaded certificate on the running HTTPS listener, or logs why not.
    private func replaceCertificate(on server: HTTPServer, with files: ProxyConfiguration.TLSFiles) {
        do {
            try server.replaceCertificate(files.certificate)
            ProxyRuntime.logCertificate("tls certificate reloaded", files.certificate, listener: "admin", log: log)
        } catch {
            log.error("tls certificate reload failed; the old certificate stays", ["listener": .string("admin"), "error": .string(error.message)])
        }
    }
}
