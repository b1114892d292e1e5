/// One OpenPush app's pacing state: the grant times of its recent and reserved sends (live and
/// shadow alike: OpenPush counts both), which of them were shadow sends, and the time before
/// which nothing may be sent (an upstream 429's `Retry-After`). Pure: the in-process
/// ``SendPacer`` keeps one per app in memory, the shared ``PostgresSendPacer`` loads it from
/// its locked row, applies the same rule, and writes it back.
///
/// Live first: a live send reserves with ``reserve(count:now:settings:)`` and counts every
/// send in the window; a shadow send reserves with ``reserveSpare(count:now:settings:)``,
/// which takes only slots free now that no live send waits for and that leave the live
/// reserve free, so a shadow never waits in front of a live send nor takes a slot one was
/// promised.
struct PacerWindow: Sendable, Equatable {
    /// Grant times of recent and reserved sends (live and shadow), ascending.
    var slots = PacerSlots()
    /// Grant times of the shadow sends among ``slots``, ascending.
    var spare = PacerSlots()
    /// No send before this (an upstream 429's `Retry-After`).
    var blockedUntil: Int64 = 0

    /// An empty window.
    init() {}

    /// A window with these slots, the shadow sends among them, and block.
    init(slots times: [Int64], spare spareTimes: [Int64] = [], blockedUntil: Int64) {
        for t in times.sorted() { slots.append(t) }
        for t in spareTimes.sorted() { spare.append(t) }
        self.blockedUntil = blockedUntil
    }

    /// Reserves `count` consecutive slots at `now` or refuses them all (see
    /// ``SendPacing/reserve(app:count:now:)``); a refusal takes no slot.
    mutating func reserve(count: Int, now: Int64, settings: DeliverySettings) -> SendPacer.Reservation {
        let limit = max(settings.sendsPerWindow, 1), span = settings.windowMs + settings.marginMs
        slots.drop(through: now - span)
        spare.drop(through: now - span)
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

    /// Reserves `count` slots at `now` for a shadow send, only from budget live sends do not
    /// need, or refuses them all with the seconds after which asking again may succeed. The
    /// rule, live first: granted only when nothing blocks the app now, no live send waits for
    /// a later slot (the shadow never goes in front of it), and after these `count` sends the
    /// window keeps free at least ``DeliverySettings/effectiveLiveReserve`` slots and at least
    /// as many as live sends already used in it (the live traffic of the last window may come
    /// again). Granted slots are all `now` and count in the window like live ones, so live
    /// and shadow sends together never exceed `sends_per_window`.
    mutating func reserveSpare(count: Int, now: Int64, settings: DeliverySettings) -> SendPacer.Reservation {
        let limit = max(settings.sendsPerWindow, 1), span = settings.windowMs + settings.marginMs
        slots.drop(through: now - span)
        spare.drop(through: now - span)
        let seconds = { (at: Int64) in SendPacer.Reservation.refused(retryAfterSeconds: max(1, Int((at - now + 999) / 1000))) }
        if blockedUntil > now { return seconds(blockedUntil) }
        if let last = slots.last, last > now { return seconds(last) }
        let headroom = max(settings.effectiveLiveReserve, slots.count - spare.count)
        let excess = slots.count + count + headroom - limit
        if excess > 0 {
            // When `excess` sends have left the window (or a whole window, if that is never enough).
            return seconds(excess <= slots.count ? slots[excess - 1] + span : now + span)
        }
        for _ in 0..<count {
            slots.append(now)
            spare.append(now)
        }
        return .granted(Array(repeating: now, count: count))
    }

    /// No send before `until` (never moves the block earlier).
    mutating func blockUntil(_ until: Int64) { blockedUntil = max(blockedUntil, until) }
}
