import Synchronization

/// Paces sends per OpenPush app so OpenPush's sliding window (60 per 60 s) is never exceeded,
/// in this process: the pacer of a single instance (see ``PostgresSendPacer`` for several).
///
/// A token bucket whose tokens come back one window (plus a margin) after they are spent:
/// exactly the sliding window OpenPush counts with. Sends reserve their slots up front, in
/// order, and then sleep until their slot; a request whose slots would make more than
/// `queueLimit` sends wait, or wait longer than `maxWaitMs`, is refused with the seconds after
/// which a retry would fit. An upstream 429 drains the bucket until its `Retry-After`.
public final class SendPacer: SendPacing {
    /// The result of a reservation.
    public enum Reservation: Sendable, Equatable {
        /// One grant time (Unix ms) per send, in order.
        case granted([Int64])
        /// Refused: the queue is full; retry after this many seconds.
        case refused(retryAfterSeconds: Int)
        /// The shared pacing state could not be reached: nothing may be sent, and the caller
        /// is told so (never a rate limit OpenPush did not impose).
        case unavailable
    }

    /// The settings.
    public let settings: DeliverySettings
    private let windows = Mutex<[String: PacerWindow]>([:])

    /// A pacer.
    public init(settings: DeliverySettings) { self.settings = settings }

    /// Reserves `count` consecutive slots for `app` at `now`, or refuses them all.
    public func reserve(app: String, count: Int, now: Int64) -> Reservation {
        let settings = settings
        return windows.withLock { all in
            // Mutated in place in the dictionary: a copy out and back would copy every slot.
            all[app, default: PacerWindow()].reserve(count: count, now: now, settings: settings)
        }
    }

    /// Reserves `count` slots for `app` at `now` for a shadow send, live first, or refuses them all.
    public func reserveSpare(app: String, count: Int, now: Int64) -> Reservation {
        let settings = settings
        return windows.withLock { all in
            all[app, default: PacerWindow()].reserveSpare(count: count, now: now, settings: settings)
        }
    }

    /// After an upstream 429: no send for `app` before `until` (Unix ms).
    public func drain(app: String, until: Int64) {
        windows.withLock { all in
            all[app, default: PacerWindow()].blockUntil(until)
        }
    }

    /// The time before which nothing may be sent for `app`.
    public func blockedUntil(app: String) -> Int64 { windows.withLock { $0[app]?.blockedUntil ?? 0 } }

    /// Sends waiting for their slot for `app` at `now`.
    public func waiting(app: String, now: Int64) -> Int { windows.withLock { $0[app]?.slots.count(after: now) ?? 0 } }
}
