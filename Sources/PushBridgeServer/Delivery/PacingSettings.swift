/// How sends to one OpenPush app are paced, and how failed sends are retried.
public struct DeliverySettings: Sendable, Equatable {
    /// Sends allowed per window per OpenPush app. Default 60 (OpenPush's documented limit).
    public var sendsPerWindow: Int = 60
    /// The window, milliseconds. Default 60000.
    public var windowMs: Int64 = 60_000
    /// Added to the window so clock skew with OpenPush never makes it count one send too
    /// many. Default 500 ms.
    public var marginMs: Int64 = 500
    /// Sends that may wait for a slot per app; more get the dialect's rate-limit answer.
    /// Default 60.
    public var queueLimit: Int = 60
    /// The longest a send may wait for its slot; a request whose slots are later gets the
    /// rate-limit answer. Default 65000 ms (one window and its margin, plus slack).
    public var maxWaitMs: Int64 = 65_000
    /// Attempts per send, the first included. Default 3.
    public var maxAttempts: Int = 3
    /// The first backoff, doubled each retry, with jitter (each delay is drawn from its upper
    /// half). Default 200 ms.
    public var backoffBaseMs: Int64 = 200
    /// The largest backoff. Default 2000 ms.
    public var backoffMaxMs: Int64 = 2000
    /// How long an update (or end) OpenPush accepted is remembered, so that a caller's
    /// identical repeat (same app, activity, body and key) is answered with the first one's
    /// result instead of being sent again (see ``UpdateRepeats``); a repeat while the first is
    /// still being sent waits for it. 0 turns it off. Default 120000 ms.
    public var repeatWindowMs: Int64 = 120_000
    /// Slots of each window that shadow sends never take (`delivery.live_reserve`): a shadow
    /// send goes only while, after it, the window still has this many free slots, and at
    /// least as many as the live sends already in the window (see
    /// ``PacerWindow/reserveSpare(count:now:settings:)``). Nil: a third of
    /// ``sendsPerWindow`` (20 of 60).
    public var liveReserve: Int?
    /// The longest a shadow send waits for a slot live sends do not need
    /// (`delivery.shadow_max_wait_ms`); past it the shadow is skipped, counted
    /// (`pushbridge_shadow_skipped_total`) and its comparison row says so. Default 10000 ms.
    public var shadowMaxWaitMs: Int64 = 10_000

    /// The live reserve in effect: ``liveReserve``, or a third of ``sendsPerWindow``.
    public var effectiveLiveReserve: Int { min(liveReserve ?? max(sendsPerWindow, 1) / 3, max(sendsPerWindow, 1)) }

    /// The defaults.
    public init() {}

    /// The backoff before retry number `retry` (1 for the first retry), with jitter from the
    /// system's generator.
    public func backoff(retry: Int) -> Int64 {
        var system = SystemRandomNumberGenerator()
        return backoff(retry: retry, using: &system)
    }

    /// The backoff before retry number `retry` (1 for the first retry), with its jitter drawn
    /// from `random`: uniform over the upper half of the doubled delay, capped at the maximum.
    public func backoff(retry: Int, using random: inout some RandomNumberGenerator) -> Int64 {
        let ceiling = min(backoffMaxMs, backoffBaseMs << Int64(min(max(retry - 1, 0), 20)))
        return ceiling <= 1 ? ceiling : Int64.random(in: (ceiling / 2)...ceiling, using: &random)
    }
}
