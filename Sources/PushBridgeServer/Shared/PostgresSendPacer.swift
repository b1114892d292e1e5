import Foundation

/// Paces sends per OpenPush app across every PushBridge instance on one PostgreSQL database.
///
/// Each app's window (``PacerWindow``: its grant times and its 429 block) is one row of
/// `pacer_windows`. A reservation is one short transaction: the row is locked (created when
/// missing) and read, the same rule as the in-process ``SendPacer`` grants or refuses, and
/// the grants are written back before the lock is released. So N instances together never
/// grant more than `sends_per_window` per window per app, and a request that does not fit
/// now gets later slots (it waits for them) exactly as with one instance. A 429's
/// `Retry-After` blocks the app for every instance.
///
/// Every grant is also recorded under the instance it was made for (`pacer_holds`), so the
/// grants of an instance that is gone can be given back: a survivor's takeover of a dead
/// instance (``InstanceRegistry``) and a clean stop remove its grants later than the moment
/// it was gone from the window, so the others do not wait behind sends that will never happen.
///
/// Grant times are each instance's own clock: instances on several hosts need their clocks
/// in step (NTP); `margin_ms` absorbs the rest. When the database cannot be reached a
/// reservation is ``SendPacer/Reservation/unavailable`` (nothing is sent; the caller gets the
/// dialect's 503, not a rate limit OpenPush never imposed), a drain is logged and lost.
public final class PostgresSendPacer: SendPacing {
    /// The settings.
    public let settings: DeliverySettings
    private let link: PostgresLink
    private let log: EventLog?
    /// The instance the grants are recorded under.
    public let instance: String

    /// A pacer on the database at `uri` (its schema applied by ``SharedSchema``) for the
    /// instance named `instance`.
    public init(uri: String, settings: DeliverySettings, instance: String, log: EventLog?) throws(PostgresError) {
        self.settings = settings
        self.instance = instance
        self.link = try PostgresLink(uri: uri, label: "pacer")
        self.log = log
    }

    /// Reserves `count` consecutive slots for `app` at `now`, or refuses them all.
    public func reserve(app: String, count: Int, now: Int64) async -> SendPacer.Reservation {
        let (settings, instance) = (settings, instance)
        do {
            return try await link.runOffPool { db in
                try db.transaction {
                    var window = try Self.lock(app, on: db)
                    let reservation = window.reserve(count: count, now: now, settings: settings)
                    if case .granted(let grants) = reservation {
                        try Self.store(window, grants: grants, app: app, instance: instance, expiredThrough: now - settings.windowMs - settings.marginMs, on: db)
                    }
                    return reservation
                }
            }
        } catch {
            log?.error("the shared pacer could not reserve a slot; nothing is sent", ["app": .string(app), "error": .string("\(error)")])
            return .unavailable
        }
    }

    /// After an upstream 429: no send for `app` before `until` (Unix ms), for every instance.
    public func drain(app: String, until: Int64) async {
        do {
            try await link.runOffPool { db in
                _ = try db.execute("""
                    INSERT INTO pacer_windows (app, blocked_until) VALUES ($1, $2::bigint)
                    ON CONFLICT (app) DO UPDATE SET blocked_until = GREATEST(pacer_windows.blocked_until, EXCLUDED.blocked_until)
                    """, [app, String(until)])
            }
        } catch {
            log?.error("the shared pacer could not record an upstream 429", ["app": .string(app), "error": .string("\(error)")])
        }
    }

    /// The time before which nothing may be sent for `app`; 0 when the database cannot say.
    public func blockedUntil(app: String) async -> Int64 {
        let value = try? await link.runOffPool { db in
            try db.execute("SELECT blocked_until FROM pacer_windows WHERE app = $1", [app]).value(0, 0)
        }
        return value.flatMap { $0 }.flatMap { Int64($0) } ?? 0
    }

    /// The app's row, locked for this transaction (created empty when missing).
    private static func lock(_ app: String, on db: PostgresConnection) throws -> PacerWindow {
        // An upsert that touches the row takes its lock and returns it in one round trip.
        let row = try db.execute("""
            INSERT INTO pacer_windows (app) VALUES ($1)
            ON CONFLICT (app) DO UPDATE SET app = EXCLUDED.app
            RETURNING slots, blocked_until
            """, [app])
        return PacerWindow(slots: parseArray(row.value(0, 0) ?? "{}"), blockedUntil: row.value(0, 1).flatMap { Int64($0) } ?? 0)
    }

    /// Writes the window back and adds `grants` to what `instance` holds for `app` (its
    /// slots at or before `expiredThrough`, out of the window, forgotten), in one statement.
    private static func store(_ window: PacerWindow, grants: [Int64], app: String, instance: String, expiredThrough: Int64, on db: PostgresConnection) throws {
        try db.execute("""
            WITH w AS (UPDATE pacer_windows SET slots = $2::bigint[] WHERE app = $1)
            INSERT INTO pacer_holds (app, instance, slots) VALUES ($1, $3, $4::bigint[])
            ON CONFLICT (app, instance) DO UPDATE
                SET slots = ARRAY(SELECT s FROM unnest(pacer_holds.slots) AS s WHERE s > $5::bigint ORDER BY s) || EXCLUDED.slots
            """, [app, arrayText(window.slots.all), instance, arrayText(grants), String(expiredThrough)])
    }

    /// A `BIGINT[]` in PostgreSQL's text form.
    static func arrayText(_ values: [Int64]) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }

    /// A `BIGINT[]` in PostgreSQL's text form (`{1,2,3}`).
    static func parseArray(_ text: String) -> [Int64] {
        text.trimmingCharacters(in: CharacterSet(charactersIn: "{}")).split(separator: ",").compactMap { Int64($0) }
    }
}
