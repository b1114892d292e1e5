import PushBridgeCore

/// A shadow's sends to OpenPush: paced in the same window as live sends, live first.
extension OpenPushDelivery {
    /// What a shadow's delivery did.
    public enum ShadowSend: Sendable {
        /// Sent: one attempt per request.
        case sent([UpstreamAttempt])
        /// Not sent: no slot live sends did not need came within `shadow_max_wait_ms` (or the
        /// shared pacing state could not be reached); why.
        case skipped(String)
    }

    /// For a shadow: one attempt per request with `timeout`. To OpenPush itself (no `baseURL`)
    /// it is paced in the same window as live sends, live first: it waits up to
    /// `shadow_max_wait_ms` for slots live sends do not need (``SendPacing/reserveSpare(app:count:now:)``)
    /// and is skipped when none came. To another `baseURL` (a sandbox, a second OpenPush) it
    /// spends none of OpenPush's budget and is sent at once.
    public func deliverShadow(_ requests: [OpenPushRequest], key: String, requestId: String, baseURL: String?, timeout: Duration) async -> ShadowSend {
        if baseURL == nil, let app = requests.first?.appId, let refusal = await takeSpareSlots(app: app, count: requests.count) {
            return .skipped(refusal)
        }
        let target = baseURL.map { OpenPushForwarder(client: forwarder.client, baseURL: $0, clock: forwarder.clock) } ?? forwarder
        var attempts: [UpstreamAttempt] = []
        for request in requests {
            let (response, attempt) = await target.exchange(request, key: key, requestId: requestId, timeout: timeout)
            attempts.append(attempt)
            if baseURL == nil { await drainIfRateLimited(response, app: request.appId) }
        }
        return .sent(attempts)
    }

    /// Waits up to `shadow_max_wait_ms` for `count` spare slots of `app` now; nil when taken,
    /// else why the shadow is skipped.
    func takeSpareSlots(app: String, count: Int) async -> String? {
        let deadline = clock.nowMilliseconds() + settings.shadowMaxWaitMs
        while true {
            let now = clock.nowMilliseconds()
            switch await pacer.reserveSpare(app: app, count: count, now: now) {
            case .granted: return nil
            case .unavailable: return "skipped: the shared pacing state cannot be reached; nothing was sent"
            case .refused(let seconds):
                let next = now + Int64(seconds) * 1000
                guard next <= deadline, !Task.isCancelled else {
                    return "skipped: OpenPush app \(app)'s window had no slot live sends did not need within \(settings.shadowMaxWaitMs) ms (delivery.shadow_max_wait_ms); nothing was sent"
                }
                try? await clock.sleep(untilMilliseconds: next)
            }
        }
    }
}
