/// Paces sends per OpenPush app across every PushBridge instance on one PostgreSQL database,
/// and the one type that writes the pacer's tables (`pacer_windows`, `pacer_holds`; their
/// statements and migrations are in `PostgresSendPacer+SQL.swift`).
///
/// Each app's window (``PacerWindow``: its grant times and its 429 block) is one row of
/// `pacer_windows`. Reservations are carried in batches (``PacerBatchQueue``): the
/// reservations waiting on the pacer's serial queue, of any apps, go in one transaction that
/// locks their apps' rows in app order (created when missing), applies the same rule as the
/// in-process ``SendPacer`` to each reservation in arrival order, writes the windows back and
/// commits once; then every caller is resumed. So N instances together never grant more than
/// `sends_per_window` per window per app, and a request that does not fit now gets later
/// slots (it waits for them) exactly as with one instance. A 429's `Retry-After` blocks the
/// app for every instance.
///
/// Every grant is also recorded under the instance it was made for (`pacer_holds`), so the
/// grants of an instance that is gone can be given back (``releaseGrants(of:laterThan:on:)``):
/// a survivor's takeover of a dead instance (``InstanceRegistry``) and a clean stop remove its
/// grants later than the moment it was gone from the window, so the others do not wait behind
/// sends that will never happen.
///
/// Grant times are each instance's own clock: instances on several hosts need their clocks
/// in step (NTP); `margin_ms` absorbs the rest. When the database cannot be reached every
/// reservation of the batch is ``SendPacer/Reservation/unavailable`` (nothing is sent; the
/// caller gets the dialect's 503, not a rate limit OpenPush never imposed), a drain is logged
/// and lost. Every statement of the pacer runs on its batch queue's one serial dispatch queue,
/// over one connection.
public final class PostgresSendPacer: SendPacing {
    /// The settings.
    public let settings: DeliverySettings
    private let link: PostgresLink
    private let log: EventLog?
    private let batches: PacerBatchQueue
    /// The instance the grants are recorded under.
    public let instance: String

    /// A pacer on the database at `uri` (its schema applied by ``PostgresSchema``) for the
    /// instance named `instance`.
    public init(uri: String, settings: DeliverySettings, instance: String, log: EventLog?) throws(PostgresError) {
        let link = try PostgresLink(uri: uri, label: "pacer")
        self.settings = settings
        self.instance = instance
        self.link = link
        self.log = log
        batches = PacerBatchQueue(label: "pushbridge-pacer-batches") { asks in
            do {
                return try link.run { db in try Self.reserve(asks, settings: settings, instance: instance, on: db) }
            } catch {
                log?.error("the shared pacer could not reserve slots; nothing is sent", [
                    "apps": .string(Set(asks.map(\.app)).sorted().joined(separator: ",")), "error": .string("\(error)"),
                ])
                return asks.map { _ in .unavailable }
            }
        }
    }

    /// Reserves `count` consecutive slots for `app` at `now`, or refuses them all; carried by
    /// the next batch.
    public func reserve(app: String, count: Int, now: Int64) async -> SendPacer.Reservation {
        await batches.submit(.init(app: app, count: count, now: now))
    }

    /// Reserves `count` slots for `app` at `now` for a shadow send, live first, or refuses
    /// them all; carried by the next batch like a live reservation.
    public func reserveSpare(app: String, count: Int, now: Int64) async -> SendPacer.Reservation {
        await batches.submit(.init(app: app, count: count, now: now, spare: true))
    }

    /// Batches written so far (one transaction and two round trips each), the reservations
    /// they carried, and the reservations waiting for the next one.
    public var batchStatistics: (batches: Int, reservations: Int, waiting: Int) { batches.statistics }

    /// After an upstream 429: no send for `app` before `until` (Unix ms), for every instance.
    public func drain(app: String, until: Int64) async {
        let link = link
        do {
            try await batches.perform { try link.run { db in _ = try db.execute(SQL.block, [app, String(until)]) } }
        } catch {
            log?.error("the shared pacer could not record an upstream 429", ["app": .string(app), "error": .string("\(error)")])
        }
    }

    /// The time before which nothing may be sent for `app`; 0 when the database cannot say.
    public func blockedUntil(app: String) async -> Int64 {
        let link = link
        let value = try? await batches.perform { try link.run { db in try db.execute(SQL.blockedUntil, [app]).value(0, 0) } }
        return value.flatMap { $0 }.flatMap { Int64($0) } ?? 0
    }
}
