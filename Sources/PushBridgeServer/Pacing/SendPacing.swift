/// What paces sends per OpenPush app: ``SendPacer`` in one process (SQLite, a single
/// instance), ``PostgresSendPacer`` across every instance on one PostgreSQL database. Both
/// apply the same rule (``PacerWindow``), so N instances together never send more than
/// `sends_per_window` per window per app, and a send that does not fit now waits for its slot.
public protocol SendPacing: Sendable {
    /// The pacing settings.
    var settings: DeliverySettings { get }
    /// Reserves `count` consecutive slots for `app` at `now` (Unix ms), or refuses them all.
    func reserve(app: String, count: Int, now: Int64) async -> SendPacer.Reservation
    /// Reserves `count` slots for `app` at `now` for a shadow send, from budget live sends do
    /// not need (``PacerWindow/reserveSpare(count:now:settings:)``), or refuses them all.
    func reserveSpare(app: String, count: Int, now: Int64) async -> SendPacer.Reservation
    /// After an upstream 429: no send for `app` before `until` (Unix ms).
    func drain(app: String, until: Int64) async
    /// The time before which nothing may be sent for `app`.
    func blockedUntil(app: String) async -> Int64
}
