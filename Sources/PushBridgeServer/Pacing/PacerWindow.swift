/// One OpenPush app's pacing state: the grant times of its recent and reserved sends and the
/// time before which nothing may be sent (an upstream 429's `Retry-After`). Pure: the
/// in-process ``SendPacer`` keeps one per app in memory, the shared ``PostgresSendPacer``
/// loads it from its locked row, applies the same rule, and writes it back.
struct PacerWindow: Sendable, Equatable {
    /// Grant times of recent and reserved sends, ascending.
    var slots = PacerSlots()
    /// No send before this (an upstream 429's `Retry-After`).
    var blockedUntil: Int64 = 0

    /// An empty window.
    init() {}

    /// A window with these slots (ascending) and block.
    init(slots times: [Int64], blockedUntil: Int64) {
        for t in times.sorted() { slots.append(t) }
        self.blockedUntil = blockedUntil
    }

    /// Reserves `count` consecutive slots at `now` or refuses them all (see
    /// ``SendPacing/reserve(app:count:now:)``); a refusal takes no slot.
    mutating func reserve(count: Int, now: Int64, settings: DeliverySettings) -> SendPacer.Reservation {
        let limit = max(settings.sendsPerWindow, 1), span = settings.windowMs + settings.marginMs
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
