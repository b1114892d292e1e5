/// OpenPush's documented numbers (`openpush-live-activities.md`, Limits and Lifecycle windows).
public enum OpenPushLimits {
    /// Maximum characters in `name`.
    public static let nameMaxLength = 128
    /// `stale_date`/`dismissal_date` at or above this are milliseconds, not seconds.
    public static let millisecondThreshold: Int64 = 100_000_000_000
    /// Devices reached per send request; over that the send is silently truncated.
    public static let fanOutCap = 2_000
    /// Target ids accepted per request.
    public static let maxTargetIds = 20_000
    /// Sends per window per app on the sending routes.
    public static let rateLimitCount = 60
    /// The rate-limit window, in seconds (also the `Retry-After` value).
    public static let rateLimitWindowSeconds: Int64 = 60
    /// Idempotency window on start, in seconds (30 days).
    public static let idempotencyWindowSeconds: Int64 = 30 * 24 * 3600
    /// Active window from registration, in seconds (8 h).
    public static let activeWindowSeconds: Int64 = 8 * 3600
    /// Total window from registration during which `end` still targets (12 h).
    public static let endWindowSeconds: Int64 = 12 * 3600
    /// Liquid cap on the alert title.
    public static let alertTitleCap = 512
    /// Liquid cap on the alert body.
    public static let alertBodyCap = 2048
    /// Token length bounds (hex, even length).
    public static let tokenLengthRange = 64...512
    /// The well-known alias labels.
    public static let wellKnownAliasLabels: Set<String> = ["external_id", "onesignal_id", "subscription_id", "openpush_id"]
}
