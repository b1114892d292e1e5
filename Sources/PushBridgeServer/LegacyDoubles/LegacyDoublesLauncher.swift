/// The embedded legacy doubles of a running proxy: their service, their server, and the base
/// URL the `"double"` legacy endpoints resolve to.
public final class LegacyDoublesRunning: Sendable {
    /// The doubles.
    public let service: LegacyDoubleService
    /// Their listener.
    public let server: HTTPServer
    /// `http://host:port`; the OneSignal double is at this + `/onesignal`, and so on.
    public let baseURL: String

    private init(service: LegacyDoubleService, server: HTTPServer, baseURL: String) {
        self.service = service
        self.server = server
        self.baseURL = baseURL
    }

    /// Starts the doubles when any `legacy.<dialect>` of `configuration` is `"double"`, on
    /// `legacy_doubles.listen`; nil when none is.
    public static func startIfNeeded(_ configuration: ProxyConfiguration) throws -> LegacyDoublesRunning? {
        guard !configuration.legacy.doubled.isEmpty else { return nil }
        let service = LegacyDoubleService(keep: configuration.legacyDoubles.keep)
        var http = HTTPServerConfiguration()
        http.host = configuration.legacyDoubles.listen.host
        http.port = UInt16(configuration.legacyDoubles.listen.port)
        let server = try HTTPServer(configuration: http, handler: service.handler)
        let address = ProxyConfiguration.ListenAddress(host: configuration.legacyDoubles.listen.host, port: Int(server.port))
        return LegacyDoublesRunning(service: service, server: server, baseURL: "http://\(address)")
    }

    /// `configuration`'s legacy endpoints with every `"double"` pointed at these doubles, or
    /// nil when it names the double and the doubles are not running (they start with `serve`).
    public static func resolve(_ configuration: ProxyConfiguration, with doubles: LegacyDoublesRunning?) -> ProxyConfiguration? {
        if configuration.legacy.doubled.isEmpty { return configuration }
        guard let doubles else { return nil }
        var resolved = configuration
        resolved.legacy = configuration.legacy.resolvingDoubles(at: doubles.baseURL)
        return resolved
    }

    /// Stops the listener.
    public func stop() async { await server.stop(gracePeriod: .seconds(1)) }
}
