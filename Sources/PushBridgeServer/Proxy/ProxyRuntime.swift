import Foundation
import PushBridgeCore

/// A running proxy: the HTTP server, the upstream client, the audit, and (when configured) the
/// embedded OpenPush sandbox it forwards to. `start` builds it from a configuration; `stop`
/// stops accepting, lets in-flight requests finish within a grace period and flushes the audit.
public final class ProxyRuntime: Sendable {
    /// The proxy's server.
    public let server: HTTPServer
    /// The embedded sandbox's server, when `sandbox.embedded`.
    public let sandboxServer: HTTPServer?
    /// The audit.
    public let audit: AuditStore
    /// The upstream client.
    public let client: UpstreamClient
    /// The metrics.
    public let metrics: Metrics
    /// The OpenPush base URL in use.
    public let openPushBaseURL: String
    /// The configured apps.
    public let directory: AppDirectory
    /// The admin listener (``AdminService``), when `admin` is configured.
    public let adminServer: HTTPServer?

    private init(server: HTTPServer, sandboxServer: HTTPServer?, audit: AuditStore, client: UpstreamClient, metrics: Metrics, openPushBaseURL: String,
                 directory: AppDirectory, adminServer: HTTPServer?) {
        self.directory = directory
        self.server = server
        self.sandboxServer = sandboxServer
        self.audit = audit
        self.client = client
        self.metrics = metrics
        self.openPushBaseURL = openPushBaseURL
        self.adminServer = adminServer
    }

    /// The port the proxy listens on.
    public var port: UInt16 { server.port }

    /// Starts everything the configuration names; throws with what failed to start.
    public static func start(_ configuration: ProxyConfiguration, log: EventLog) throws -> ProxyRuntime {
        var sandboxServer: HTTPServer?
        let baseURL: String
        if configuration.sandbox.embedded {
            let service = try SandboxCommand.makeService(seedPath: configuration.sandbox.seedPath, dbPath: nil)
            let server = try HTTPServer(configuration: HTTPServerConfiguration(), handler: service.handler)
            sandboxServer = server
            baseURL = "http://127.0.0.1:\(server.port)"
        } else if let openPush = configuration.openPush {
            baseURL = openPush.baseURL
        } else {
            throw StartError("openpush.base_url is required unless sandbox.embedded is true")
        }
        let metrics = Metrics()
        var auditConfiguration = AuditStoreConfiguration()
        auditConfiguration.onCommit = { sample in metrics.observeAuditWrite(sample.transactionDuration) }
        let audit = try AuditStore(path: configuration.auditDatabasePath, configuration: auditConfiguration)
        if audit.recoveredPendingCount > 0 {
            log.warning("audit rows left open by an earlier stop were marked unknown", ["count": .int(Int64(audit.recoveredPendingCount))])
        }
        let client = try UpstreamClient(configuration: configuration.upstreamClientConfiguration)
        metrics.sampleAuditQueueDepth { audit.queueDepth }
        let directory = AppDirectory(apps: configuration.apps)
        let service = ProxyService(.init(directory: directory,
                                         forwarder: OpenPushForwarder(client: client, baseURL: baseURL),
                                         audit: audit, log: log, metrics: metrics))
        var http = HTTPServerConfiguration()
        http.host = configuration.listen.host
        http.port = UInt16(configuration.listen.port)
        http.maxBodyBytes = configuration.limits.maxBodyBytes
        http.connectionLimit = configuration.limits.maxConnections
        http.perAddressConnectionLimit = configuration.limits.perIPConnections
        http.headerMemoryBytes = configuration.limits.headerMemoryBytes
        http.idleTimeout = configuration.limits.idleTimeout
        http.handlerDeadline = configuration.limits.upstreamTimeout * 2 + .seconds(2)
        http.failureResponder = ProxyFailureResponder.make(audit: audit, log: log)
        let server = try HTTPServer(configuration: http, handler: service.handler)
        let adminServer = try configuration.admin.map { admin in
            var adminHTTP = HTTPServerConfiguration()
            adminHTTP.host = admin.listen.host
            adminHTTP.port = UInt16(admin.listen.port)
            return try HTTPServer(configuration: adminHTTP, handler: AdminService(token: admin.token, reader: audit.reader).handler)
        }
        return ProxyRuntime(server: server, sandboxServer: sandboxServer, audit: audit, client: client, metrics: metrics, openPushBaseURL: baseURL,
                            directory: directory, adminServer: adminServer)
    }

    /// Graceful stop: stop accepting, finish in-flight requests within `gracePeriod`, flush the audit.
    public func stop(gracePeriod: Duration = .seconds(10)) async {
        await server.stop(gracePeriod: gracePeriod)
        await adminServer?.stop(gracePeriod: .seconds(1))
        client.shutdown()
        await audit.close()
        await sandboxServer?.stop(gracePeriod: .seconds(1))
    }

    /// Why the runtime could not start.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
        init(_ d: String) { description = d }
    }
}
