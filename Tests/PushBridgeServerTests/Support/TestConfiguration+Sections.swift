import PushBridgeCore
@testable import PushBridgeServer

/// The sections of a ``TestConfiguration``, one per object of the configuration file.
extension TestConfiguration {
    /// `limits`, each field the key of the same name (`maxBodyBytes` is `max_body_bytes`);
    /// nil keeps the loader's default.
    struct Limits: Sendable {
        var maxBodyBytes: Int?
        var maxConnections: Int?
        var perIPConnections: Int?
        var headerMemoryBytes: Int?
        var maxHeadBytes: Int?
        var maxRequestTargetBytes: Int?
        var idleTimeoutSeconds: Int?
        var requestTimeoutSeconds: Int?
        var upstreamConnectTimeoutMs: Int?
        var upstreamTimeoutMs: Int?
        var maxActivities: Int?
    }

    /// `delivery` (pacing, retries, the repeat window), each field the key of the same name;
    /// nil keeps the loader's default.
    struct Delivery: Sendable {
        var sendsPerWindow: Int?
        var windowMs: Int?
        var marginMs: Int?
        var queueLimit: Int?
        var maxWaitMs: Int?
        var maxAttempts: Int?
        var backoffBaseMs: Int?
        var backoffMaxMs: Int?
        var repeatWindowMs: Int?
        var liveReserve: Int?
        var shadowMaxWaitMs: Int?
    }

    /// `shadow_queue`: `limit`, `workers`, `timeout_ms`.
    struct ShadowQueue: Sendable {
        var limit: Int?
        var workers: Int?
        var timeoutMs: Int?
    }

    /// `instances` (heartbeats of instances sharing a PostgreSQL audit): `heartbeat_ms`,
    /// `dead_after_ms`.
    struct Instances: Sendable {
        var heartbeatMs: Int?
        var deadAfterMs: Int?
    }

    /// `sandbox`: the embedded OpenPush double.
    struct Sandbox: Sendable {
        var embedded = true
        /// `seed`: a seed file path.
        var seed: String?
        /// `rate_window_seconds`.
        var rateWindowSeconds: Int?
        /// `listen`; a free port unless set.
        var listen: String? = "127.0.0.1:0"
    }

    /// `admin`: the admin listener, its bearer token read from `tokenEnv`.
    struct Admin: Sendable {
        /// `token_env`.
        var tokenEnv: String
        /// `listen`; a free port unless set.
        var listen: String? = "127.0.0.1:0"
        /// `tls`.
        var tls: TLS?
    }

    /// `legacy_doubles`: `listen`, `keep`.
    struct LegacyDoubles: Sendable {
        var listen: String?
        var keep: Int?
    }

    /// A `tls` object: a PEM chain and its key.
    struct TLS: Sendable {
        var certificateChain: String
        var privateKey: String
    }

    /// `readiness`: thresholds by name, each field the key of the same name; nil keeps the
    /// default (``ReadinessThresholds``).
    struct Readiness: Sendable, Editable {
        var minRequests: Int?
        var minShadowed: Int?
        var maxWarningShare: Double?
        var maxRejectionShare: Double?
        var maxDisagreementShare: Double?
        var maxOpenPushErrorRate: Double?
        var maxRateLimitedRate: Double?
        var minReach: Double?
        var openPushRequestsPerMinute: Int?
        /// `accepted_losses`: app name or source app id → field paths.
        var acceptedLosses: [String: [String]]?
    }

    /// JSON text that older call sites hand to a harness (`limits: "{…}"`, `topExtra: ", …"`,
    /// `pushwooshExtra`, `apps: "[…]"`), merged over the typed fields when the file is
    /// rendered. The loader still reads the result, so a wrong key is still refused.
    struct Fragments: Sendable {
        /// Top-level members; a key here replaces the typed one.
        var top = JSONObject()
        /// Members of `limits`.
        var limits = JSONObject()
        /// More members per app name.
        var apps: [String: JSONObject] = [:]
        /// An `apps` array that replaces ``TestConfiguration/apps``.
        var appsArray: JSONValue?
    }
}
