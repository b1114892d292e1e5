import PushBridgeCore

/// The sending routes' rate limit: 60 requests per 60 seconds per app (a sliding window).
/// Kept in memory only; a restarted sandbox starts with a fresh window.
struct SandboxRateLimiter {
    private var hits: [String: [Int64]] = [:]

    /// Records a request for `app` at `now`; false when it is over the limit (and not counted).
    mutating func admit(app: String, now: Int64) -> Bool {
        let windowStart = now - OpenPushLimits.rateLimitWindowSeconds
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
