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
        var slots = PacerSlots()
        /// No send before this (an upstream 429's `Retry-After`).
        var blockedUntil: Int64 = 0

        /// Reserves `count` consecutive slots at `now` or refuses them all (see
        /// ``SendPacer/reserve(app:count:now:)``); a refusal takes no slot.
        mutating func reserve(count: Int, now: Int64, limit: Int, span: Int64, settings: DeliverySettings) -> Reservation {
            slots.drop(through: now - span)
            let held = slots.count
            var grants: [Int64] = []
            grants.reserveCapacity(count)
            var last = slots.last
            for k in 0..<count {
                var t = max(now, blockedUntil, last ?? now)
                let total = held + k
                if total >= limit {
                    let i = total - limit
                    t = max(t, (i < held ? slots[i] : grants[i - held]) + span)
                }
                grants.append(t)
                last = t
            }
            let heldWaiting = slots.count(after: now)
            let waiting = heldWaiting + grants.count - (grants.firstIndex { $0 > now } ?? grants.count)
            if let lastGrant = grants.last, waiting > settings.queueLimit || lastGrant - now > settings.maxWaitMs {
                // Retry when enough waiting slots have been used for this request to fit.
                let excess = max(waiting - settings.queueLimit, 0)
                var at = excess > 0 && excess <= heldWaiting ? slots[held - heldWaiting + excess - 1] : now
                at = max(at, lastGrant - settings.maxWaitMs)
                return .refused(retryAfterSeconds: max(1, Int((at - now + 999) / 1000)))
            }
            for t in grants { slots.append(t) }
            return .granted(grants)
        }

        /// No send before `until` (never moves the block earlier).
        mutating func blockUntil(_ until: Int64) { blockedUntil = max(blockedUntil, until) }
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
        let limit = max(settings.sendsPerWindow, 1), span = span, settings = settings
        return windows.withLock { all in
            // Mutated in place in the dictionary: a copy out and back would copy every slot.
            all[app, default: Window()].reserve(count: count, now: now, limit: limit, span: span, settings: settings)
        }
    }

    /// After an upstream 429: no send for `app` before `until` (Unix ms).
    public func drain(app: String, until: Int64) {
        windows.withLock { all in
            all[app, default: Window()].blockUntil(until)
        }
    }

    /// The time before which nothing may be sent for `app`.
    public func blockedUntil(app: String) -> Int64 { windows.withLock { $0[app]?.blockedUntil ?? 0 } }

    /// Sends waiting for their slot for `app` at `now`.
    public func waiting(app: String, now: Int64) -> Int { windows.withLock { $0[app]?.slots.count(after: now) ?? 0 } }
}
