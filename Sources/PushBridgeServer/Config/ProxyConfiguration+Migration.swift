import PushBridgeCore

extension ProxyConfiguration {
    /// The legacy providers' base URLs, for observe and shadow modes.
    public struct LegacyEndpoints: Sendable, Equatable {
        /// Base URL per dialect (e.g. `https://onesignal.com`), without a trailing slash.
        public var baseURLs: [DialectName: String] = [:]
        /// None configured.
        public init(baseURLs: [DialectName: String] = [:]) { self.baseURLs = baseURLs }
        /// The base URL for a dialect's provider.
        public subscript(dialect: DialectName) -> String? { baseURLs[dialect] }
    }

    /// The background queue that feeds shadows.
    public struct ShadowQueueSettings: Sendable, Equatable {
        /// Shadow sends waiting or running at once; more are dropped and counted. Default 256.
        public var limit: Int = 256
        /// Shadow sends running at once. Default 4.
        public var workers: Int = 4
        /// One shadow call's hard deadline. Default 5000 ms.
        public var timeout: Duration = .milliseconds(5000)
        /// The defaults.
        public init() {}
    }

    static func decodeLegacy(_ value: JSONValue?, _ r: ConfigReader) -> LegacyEndpoints {
        var legacy = LegacyEndpoints()
        guard let o = r.object(value, at: "legacy", allowed: DialectName.allCases.map(\.rawValue)) else { return legacy }
        for d in DialectName.allCases {
            guard let url = r.string(o, d.rawValue, at: "legacy") else { continue }
            if url == ProxyConfiguration.legacyDoubleMarker {
                legacy.baseURLs[d] = url
                continue
            }
            if !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
                r.report("legacy.\(d.rawValue)", "must be an absolute http:// or https:// URL, or \"double\" for the embedded legacy double")
            }
            legacy.baseURLs[d] = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        return legacy
    }

    static func decodeDelivery(_ value: JSONValue?, _ r: ConfigReader) -> (DeliverySettings, String?) {
        var s = DeliverySettings()
        let keys = ["sends_per_window", "window_ms", "margin_ms", "queue_limit", "max_wait_ms", "max_attempts", "backoff_base_ms", "backoff_max_ms", "repeat_window_ms", "scheduler_db",
                    "live_reserve", "shadow_max_wait_ms"]
        guard let o = r.object(value, at: "delivery", allowed: keys) else { return (s, nil) }
        s.sendsPerWindow = r.positiveInt(o, "sends_per_window", at: "delivery", default: s.sendsPerWindow)
        s.windowMs = Int64(r.positiveInt(o, "window_ms", at: "delivery", default: Int(s.windowMs)))
        if let m = o["margin_ms"] {
            if let v = m.numberValue?.int64Value, v >= 0, v <= 60_000 { s.marginMs = v } else { r.report("delivery.margin_ms", "must be an integer from 0 to 60000") }
        }
        s.queueLimit = r.positiveInt(o, "queue_limit", at: "delivery", default: s.queueLimit)
        s.maxWaitMs = Int64(r.positiveInt(o, "max_wait_ms", at: "delivery", default: Int(s.maxWaitMs)))
        s.maxAttempts = r.positiveInt(o, "max_attempts", at: "delivery", default: s.maxAttempts)
        if s.maxAttempts > 10 { r.report("delivery.max_attempts", "must be at most 10") }
        s.backoffBaseMs = Int64(r.positiveInt(o, "backoff_base_ms", at: "delivery", default: Int(s.backoffBaseMs)))
        s.backoffMaxMs = Int64(r.positiveInt(o, "backoff_max_ms", at: "delivery", default: Int(s.backoffMaxMs)))
        if s.backoffBaseMs > s.backoffMaxMs { r.report("delivery.backoff_base_ms", "must not exceed delivery.backoff_max_ms") }
        if let w = o["repeat_window_ms"] {
            if let v = w.numberValue?.int64Value, v >= 0, v <= 3_600_000 { s.repeatWindowMs = v } else { r.report("delivery.repeat_window_ms", "must be an integer from 0 to 3600000") }
        }
        if let v = o["live_reserve"] {
            if let n = v.numberValue?.int64Value, n >= 0, n <= Int64(s.sendsPerWindow) { s.liveReserve = Int(n) }
            else { r.report("delivery.live_reserve", "must be an integer from 0 to delivery.sends_per_window (\(s.sendsPerWindow))") }
        }
        s.shadowMaxWaitMs = Int64(r.positiveInt(o, "shadow_max_wait_ms", at: "delivery", default: Int(s.shadowMaxWaitMs)))
        return (s, r.string(o, "scheduler_db", at: "delivery"))
    }

    static func decodeShadowQueue(_ value: JSONValue?, _ r: ConfigReader) -> ShadowQueueSettings {
        var q = ShadowQueueSettings()
        guard let o = r.object(value, at: "shadow_queue", allowed: ["limit", "workers", "timeout_ms"]) else { return q }
        q.limit = r.positiveInt(o, "limit", at: "shadow_queue", default: q.limit)
        q.workers = r.positiveInt(o, "workers", at: "shadow_queue", default: q.workers)
        q.timeout = .milliseconds(r.positiveInt(o, "timeout_ms", at: "shadow_queue", default: 5000))
        return q
    }

    /// Cross-checks modes against what they need: a legacy URL for observe, shadow and
    /// rollout, the embedded sandbox for a shadow sent to `"sandbox"`.
    static func checkModes(_ c: ProxyConfiguration, _ r: ConfigReader) {
        for (i, app) in c.apps.enumerated() {
            let modes = app.modesInUse
            if modes.contains(.observe) || modes.contains(.shadow), c.legacy[app.dialect] == nil {
                r.report("apps[\(i)].mode", "observe and shadow need legacy.\(app.dialect.rawValue), the legacy provider's base URL")
            }
            if modes.contains(.rollout), c.legacy[app.dialect] == nil {
                r.report("apps[\(i)].rollout", "rollout needs legacy.\(app.dialect.rawValue), the legacy provider's base URL: the starts outside the percent (and every fallback) go there")
            }
            if app.shadow?.openPushBaseURL == "sandbox", !c.sandbox.embedded {
                r.report("apps[\(i)].shadow.openpush_base_url", "\"sandbox\" needs sandbox.embedded true")
            }
        }
    }

    /// The scheduler database path: `delivery.scheduler_db`, else the audit path with
    /// `.sqlite` replaced by `-scheduled.sqlite` (or `.scheduled` appended).
    public var schedulerDatabasePath: String {
        schedulerDatabase ?? Self.schedulerDatabasePath(forAudit: auditDatabasePath)
    }

    /// The scheduler file beside the SQLite audit at `auditPath` when `delivery.scheduler_db`
    /// names none: `.sqlite` replaced by `-scheduled.sqlite` (or `.scheduled` appended).
    public static func schedulerDatabasePath(forAudit auditPath: String) -> String {
        if auditPath.hasSuffix(".sqlite") { return String(auditPath.dropLast(7)) + "-scheduled.sqlite" }
        return auditPath + ".scheduled"
    }
}
