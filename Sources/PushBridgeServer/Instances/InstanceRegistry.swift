import Foundation
import Synchronization

/// The instances sharing one PostgreSQL database, and what a survivor does for one that died.
///
/// Each instance has a row in `instances` whose `heartbeat_at` it refreshes every
/// `heartbeat_ms` (PostgreSQL's clock, so hosts whose clocks differ agree). On the same beat
/// it looks for instances silent longer than `dead_after_ms` and takes each over in one
/// transaction: the dead row is locked with `FOR UPDATE SKIP LOCKED` (two survivors never
/// both take one), its scheduled starts left `sending` go back to `pending` (the scheduled
/// starts' owner does it: ``ScheduledStartStore/release(claimedBy:on:)``; they are sent
/// again with their own idempotency key), its pacer grants timed after it was declared dead
/// (its last heartbeat plus `dead_after_ms`) leave the shared window (its waiting sends will
/// never be made, so the survivors must not wait behind them), the takeover statements it was
/// given run (the audit marks the dead instance's `pending` rows `unknown`), and the row is
/// deleted. A process starting first does the same for its own earlier process of the same
/// name (its starts left `sending`). A clean stop gives back its own grants still to come and deletes its own row:
/// nothing is left to take over.
public final class InstanceRegistry: Sendable {
    /// What one takeover settled.
    public struct Takeover: Sendable, Equatable {
        /// The dead instance.
        public var instance: String
        /// Its scheduled starts made `pending` again.
        public var starts: Int
        /// Rows the other takeover statements changed (its audit rows marked `unknown`).
        public var rows: Int
        /// Its pacer grants given back (sends it was waiting to make when it died).
        public var slots = 0
    }

    /// This instance's name.
    public let name: String
    /// The heartbeat settings.
    public let settings: InstanceSettings
    private let link: PostgresLink
    private let log: EventLog
    /// Statements run in each takeover's transaction with `$1` = the dead instance's name.
    private let takeoverStatements: [String]
    /// Run in each takeover's transaction before ``takeoverStatements``, with the dead instance's name.
    private let takeoverWork: (@Sendable (PostgresConnection, String) throws -> Void)?
    private let loop = Mutex<PeriodicTask?>(nil)
    private let staleCount = Atomic<Int>(0)
    private let takeoverCount = Atomic<Int>(0)

    /// The instances the last takeover pass found silent longer than `dead_after_ms`, taken
    /// over or not (`pushbridge_instances_stale`): it stays above 0 while their takeover fails.
    public var stale: Int { staleCount.load(ordering: .relaxed) }

    /// The instances this one took over since it started (`pushbridge_instance_takeovers_total`).
    public var takeovers: Int { takeoverCount.load(ordering: .relaxed) }

    /// A registry entry for `name` on the database at `uri` (schema applied here); call
    /// ``start()`` to register and beat.
    public init(uri: String, name: String, settings: InstanceSettings, log: EventLog, takeoverStatements: [String] = [],
                takeoverWork: (@Sendable (PostgresConnection, String) throws -> Void)? = nil) throws {
        self.name = name
        self.settings = settings
        self.log = log
        self.takeoverStatements = takeoverStatements
        self.takeoverWork = takeoverWork
        link = try PostgresLink(uri: uri, label: "instances")
        try link.run { try PostgresSchema.migrator.migrate($0) }
    }

    /// Registers this instance (a heartbeat now), makes `pending` again the scheduled starts an
    /// earlier process of this name left `sending` (it stopped mid-send; each is sent again
    /// with its own idempotency key), and starts beating.
    public func start() throws {
        try beat()
        let recovered = try link.run { [name] db in try ScheduledStartStore.release(claimedBy: name, on: db) }
        if recovered > 0 { log.info("scheduled starts left sending by this instance's earlier process are pending again", ["count": .int(Int64(recovered))]) }
        let task = PeriodicTask(every: .milliseconds(settings.heartbeatMs), clock: SystemDeliveryClock()) { [weak self] in await self?.tick() }
        loop.withLock { $0 = task }
    }

    /// Stops beating, gives back this instance's pacer grants still to come (call it once
    /// nothing of this process sends any more) and removes this instance's row.
    public func stop() async {
        await loop.withLock { t in
            defer { t = nil }
            return t
        }?.stop()
        let name = name
        _ = try? await link.runOffPool { db in
            try db.transaction {
                _ = try PostgresSendPacer.releaseGrants(of: name, laterThan: InstanceSQL.serverNow, on: db)
                return try db.execute(InstanceSQL.remove, [name]).affectedRows
            }
        }
    }

    /// Records a heartbeat. An instance found missing (a survivor took it over while it was
    /// stalled) registers again and says so.
    public func beat() throws {
        let name = name
        let changed = try link.run { db in
            try db.execute(InstanceSQL.beat, [name]).affectedRows
        }
        guard changed == 0 else { return }
        let inserted = try link.run { db in
            try db.execute(InstanceSQL.register, [name]).affectedRows
        }
        if inserted == 1 { log.info("instance registered", ["instance": .string(name)]) }
    }

    /// Takes over every instance silent longer than `dead_after_ms`; what each settled.
    public func takeOverDead() throws -> [Takeover] {
        let (name, deadAfter, statements, work) = (name, settings.deadAfterMs, takeoverStatements, takeoverWork)
        let settled: [Takeover] = try link.run { db in
            try db.transaction {
                let dead = try db.execute(InstanceSQL.lockDead, [name, String(deadAfter)]).rows.compactMap { row in row[0].flatMap { name in row[1].flatMap { Int64($0) }.map { (name, $0) } } }
                // The rows this query locked are the stale gauge, kept when a takeover below fails
                // (the next pass finds them again), so an alert sees an instance nobody took over.
                self.staleCount.store(dead.count, ordering: .relaxed)
                return try dead.map { instance, heartbeatAt in
                    let starts = try ScheduledStartStore.release(claimedBy: instance, on: db)
                    // Dead, by the registry's rule, from its last heartbeat plus dead_after on: its grants
                    // timed after that are sends it will never make.
                    let slots = try PostgresSendPacer.releaseGrants(of: instance, laterThan: String(heartbeatAt + deadAfter), on: db)
                    try work?(db, instance)
                    // The last statement marks the rows; those before it count them in the rollups.
                    let rows = try statements.reduce(0) { _, sql in try db.execute(sql, [instance]).affectedRows }
                    try db.execute(InstanceSQL.remove, [instance])
                    return Takeover(instance: instance, starts: starts, rows: rows, slots: slots)
                }
            }
        }
        takeoverCount.add(settled.count, ordering: .relaxed)
        return settled
    }

    /// The instances registered now, by name, with their last heartbeat (Unix ms, PostgreSQL's clock).
    public func registered() throws -> [(name: String, heartbeatAt: Int64)] {
        try link.run { try $0.execute(InstanceSQL.registered).rows }.compactMap { row in
            guard let name = row[0], let at = row[1].flatMap({ Int64($0) }) else { return nil }
            return (name, at)
        }
    }

    /// One beat: the heartbeat, then the takeovers, each logged; errors are logged and the
    /// next beat tries again.
    private func tick() async {
        do {
            let takeovers = try await link.onQueue { [self] in
                try beat()
                return try takeOverDead()
            }
            for t in takeovers {
                log.warning("instance stopped beating; its open work was taken over", [
                    "instance": .string(t.instance), "scheduled_starts_resent": .int(Int64(t.starts)), "rows_marked_unknown": .int(Int64(t.rows)),
                    "pacer_slots_released": .int(Int64(t.slots)),
                ])
            }
        } catch {
            log.error("instance heartbeat failed", ["instance": .string(name), "error": .string("\(error)")])
        }
    }
}
