import PushBridgeCore

extension OpenPushDelivery {
    /// The backoff before the next attempt of `request` after `response` (its `attempts`-th), or
    /// nil when no retry follows: the attempts are used up, the rules forbid one
    /// (``mayRetry(_:after:)``), or the backoff and one more upstream call would pass `deadline`.
    /// The jitter is drawn from `random` only once the attempts and the rules allow a retry: an
    /// answer that ends the send draws nothing (each draw from the system's generator is a
    /// `getrandom`, and most sends end at their first answer).
    static func retryWait(_ request: OpenPushRequest, after response: UpstreamResponse, attempts: Int, settings: DeliverySettings,
                          upstreamTimeout: Duration, deadline: ContinuousClock.Instant, random: inout some RandomNumberGenerator) -> Int64? {
        guard attempts < settings.maxAttempts, mayRetry(request, after: response) else { return nil }
        let backoff = settings.backoff(retry: attempts, using: &random)
        guard ContinuousClock.now + .milliseconds(backoff) + upstreamTimeout <= deadline else { return nil }
        return backoff
    }
}
