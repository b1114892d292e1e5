import Synchronization

/// Paces sends per OpenPush app so OpenPush's sliding window (60 per 60 s) is never exceeded.
///
/// A token bucket whose tokens come back one window (plus a margin) after they are spent:
/// exactly the sliding window OpenPush counts with. Sends reserve their slots up front, in
/// order, and then sleep until their slot; a request whose slots would make more than
/// `queueLimit` sends wait, or wait longer than `maxWaitMs`, is refused with the seconds after
/// which a retry would fit. An upstream 429 drains the bucket until its `Retry-After`.
public final class SendPacer: Sendable {
    private struct Window {
        /// Grant times of recent and reserved sends, ascending.
        var slots: [Int64] = []
        /// No send before this (an upstream 429's `Retry-After`).
        var blockedUntil: Int64 = 0
    }

    /// The result of a reservation.
    public enum Reservation: Sendable, Equatable {
        /// One grant time (Unix ms) per send, in order.
        case granted([Int64])
        /// Refused: the queue is full; retry after this many seconds.
        case refused(retryAfterSeconds: Int)
    }

    /// The settings.
    public let settings: DeliverySettings
    private let windows = Mutex<[String: Window]>([:])

    /// A pacer.
    public init(settings: DeliverySettings) { self.settings = settings }

    private var span: Int64 { settings.windowMs + settings.marginMs }

    /// Reserves `count` consecutive slots for `app` at `now`, or refuses them all.
    public func reserve(app: String, count: Int, now: Int64) -> Reservation {
        let limit = max(settings.sendsPerWindow, 1), span = span
        return windows.withLock { all in
            var w = all[app] ?? Window()
            w.slots.removeAll { $0 <= now - span }
            var slots = w.slots, grants: [Int64] = []
            for _ in 0..<count {
                var t = max(now, w.blockedUntil, slots.last ?? now)
                if slots.count >= limit { t = max(t, slots[slots.count - limit] + span) }
                slots.append(t)
                grants.append(t)
            }
            let waiting = slots.filter { $0 > now }.count
            if let last = grants.last, waiting > settings.queueLimit || last - now > settings.maxWaitMs {
                // Retry when enough waiting slots have been used for this request to fit.
                let future = w.slots.filter { $0 > now }
                let excess = max(waiting - settings.queueLimit, 0)
                var at = excess > 0 && excess <= future.count ? future[excess - 1] : now
                at = max(at, last - settings.maxWaitMs)
                all[app] = w
                return .refused(retryAfterSeconds: max(1, Int((at - now + 999) / 1000)))
            }
            w.slots = slots
            all[app] = w
            return .granted(grants)
        }
    }

    /// After an upstream 429: no send for `app` before `until` (Unix ms).
    public func drain(app: String, until: Int64) {
        windows.withLock { all in
            var w = all[app] ?? Window()
            w.blockedUntil = max(w.blockedUntil, until)
            all[app] = w
        }
    }

    /// The time before which nothing may be sent for `app`.
    public func blockedUntil(app: String) -> Int64 { windows.withLock { $0[app]?.blockedUntil ?? 0 } }

    /// Sends waiting for their slot for `app` at `now`.
    public func waiting(app: String, now: Int64) -> Int { windows.withLock { $0[app]?.slots.filter { $0 > now }.count ?? 0 } }
}
