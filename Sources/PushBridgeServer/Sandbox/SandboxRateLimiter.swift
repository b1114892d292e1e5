import PushBridgeCore

/// The sending routes' rate limit: 60 requests per window (60 seconds, as OpenPush documents,
/// unless shortened for a test) per app, a sliding window. Kept in memory only; a restarted
/// sandbox starts with a fresh window.
struct SandboxRateLimiter {
    /// The window's length in seconds.
    let windowSeconds: Int64
    private var hits: [String: [Int64]] = [:]

    /// A limiter over windows of `windowSeconds`.
    init(windowSeconds: Int64 = OpenPushLimits.rateLimitWindowSeconds) {
        self.windowSeconds = windowSeconds
    }

    /// Records a request for `app` at `now`; false when it is over the limit (and not counted).
    mutating func admit(app: String, now: Int64) -> Bool {
        let windowStart = now - windowSeconds
        var recent = (hits[app] ?? []).filter { $0 > windowStart }
        guard recent.count < OpenPushLimits.rateLimitCount else {
            hits[app] = recent
            return false
        }
        recent.append(now)
        hits[app] = recent
        return true
    }
}
