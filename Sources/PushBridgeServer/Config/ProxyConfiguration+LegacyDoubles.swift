import PushBridgeCore

extension ProxyConfiguration {
    /// The embedded legacy doubles (`legacy_doubles`): local stand-ins for OneSignal, Pushwoosh
    /// and BuzzKit that `serve` starts when a `legacy.<dialect>` is `"double"`.
    public struct LegacyDoubles: Sendable, Equatable {
        /// Where the doubles listen. Default `127.0.0.1:0` (a free port, shown in the
        /// `listening` line); a fixed port lets a person read `/_doubles/requests` at a known address.
        public var listen = ListenAddress(host: "127.0.0.1", port: 0)
        /// How many received requests the doubles keep (the oldest are forgotten). Default 10,000.
        public var keep = 10_000
        /// The defaults.
        public init() {}
    }

    /// The value of `legacy.<dialect>` that names the embedded double instead of a URL.
    public static let legacyDoubleMarker = "double"

    /// Reads `legacy_doubles`: `listen` and `keep` (1 to 1,000,000).
    static func decodeLegacyDoubles(_ value: JSONValue?, _ r: ConfigReader) -> LegacyDoubles {
        var doubles = LegacyDoubles()
        guard let o = r.object(value, at: "legacy_doubles", allowed: ["listen", "keep"]) else { return doubles }
        if let listen = r.listenAddress(o, "listen", at: "legacy_doubles") {
            if ["127.0.0.1", "::1", "localhost"].contains(listen.host) {
                doubles.listen = listen
            } else {
                r.report("legacy_doubles.listen", "must be a loopback address (127.0.0.1, [::1] or localhost): the doubles take anyone's requests")
            }
        }
        if let keep = o["keep"] {
            if let n = keep.numberValue?.int64Value, (1...1_000_000).contains(n) { doubles.keep = Int(n) } else { r.report("legacy_doubles.keep", "must be an integer from 1 to 1000000") }
        }
        return doubles
    }
}

extension ProxyConfiguration.LegacyEndpoints {
    /// The dialects whose legacy provider is the embedded double (`"double"`), in a fixed order.
    public var doubled: [DialectName] {
        DialectName.allCases.filter { baseURLs[$0] == ProxyConfiguration.legacyDoubleMarker }
    }

    /// These endpoints with every `"double"` replaced by the running doubles' URL for its
    /// dialect (`base` + `/onesignal`, `/pushwoosh` or `/buzzkit`).
    public func resolvingDoubles(at base: String) -> Self {
        var resolved = self
        for dialect in doubled { resolved.baseURLs[dialect] = base + "/" + dialect.rawValue }
        return resolved
    }
}
