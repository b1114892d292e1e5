import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The pacer every instance shares on PostgreSQL: the in-process pacer's rule, one row lock
/// per app, so pacers in several processes (here: several pacers, each with its own
/// connection) together never grant more than the window allows.
@Suite(.serialized) struct SharedPacerTests {
    static func settings(_ perWindow: Int = 3, window: Int64 = 60_000, queue: Int = 60, maxWait: Int64 = 65_000) -> DeliverySettings {
        var s = DeliverySettings()
        s.sendsPerWindow = perWindow
        s.windowMs = window
        s.marginMs = 0
        s.queueLimit = queue
        s.maxWaitMs = maxWait
        return s
    }

    static func pacer(_ uri: String, _ settings: DeliverySettings, instance: String = "test") throws -> PostgresSendPacer {
        try PostgresLink(uri: uri, label: "test").run { try PostgresSchema.apply(on: $0) }
        return try PostgresSendPacer(uri: uri, settings: settings, instance: instance, log: nil)
    }

    @Test func grantsAndRefusalsMatchTheInProcessPacerStepForStep() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let settings = Self.settings(3, queue: 4, maxWait: 130_000)
        let shared = try Self.pacer(uri, settings), local = SendPacer(settings: settings)
        var generator = SystemRandomNumberGenerator()
        var now: Int64 = 1_000
        var refusals = 0
        for step in 0..<120 {
            now += Int64.random(in: 0...9_000, using: &generator)
            let app = step % 5 == 0 ? "b" : "a", count = Int.random(in: 1...3, using: &generator)
            if step % 17 == 0 {
                await shared.drain(app: app, until: now + 5_000)
                local.drain(app: app, until: now + 5_000)
            }
            let expected = local.reserve(app: app, count: count, now: now)
            #expect(await shared.reserve(app: app, count: count, now: now) == expected, "step \(step)")
            if case .refused = expected { refusals += 1 }
        }
        #expect(refusals > 0, "the run reached the queue limit at least once")
        #expect(await shared.blockedUntil(app: "a") == local.blockedUntil(app: "a"))
    }

    /// Shadow reservations (live first) on the shared pacer: the same answers as the
    /// in-process pacer step for step, the shadow sends among the slots kept across reads
    /// (a second pacer on its own connection sees the window the first wrote).
    @Test func spareReservationsMatchTheInProcessPacerStepForStepAcrossConnections() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        var settings = Self.settings(12, queue: 20, maxWait: 130_000)
        settings.liveReserve = 4
        let pacers = try [Self.pacer(uri, settings, instance: "a"), Self.pacer(uri, settings, instance: "b")]
        let local = SendPacer(settings: settings)
        var generator = SystemRandomNumberGenerator()
        var now: Int64 = 1_000
        var (spareGrants, spareRefusals) = (0, 0)
        for step in 0..<150 {
            now += Int64.random(in: 0...3_000, using: &generator)
            let shared = pacers[step % 2], count = Int.random(in: 1...2, using: &generator)
            if step % 3 == 0 {
                let expected = local.reserveSpare(app: "a", count: count, now: now)
                #expect(await shared.reserveSpare(app: "a", count: count, now: now) == expected, "step \(step) (shadow)")
                if case .granted = expected { spareGrants += 1 } else { spareRefusals += 1 }
            } else {
                #expect(await shared.reserve(app: "a", count: count, now: now) == local.reserve(app: "a", count: count, now: now), "step \(step) (live)")
            }
        }
        #expect(spareGrants > 0 && spareRefusals > 0, "the run both granted and refused shadows: \(spareGrants) / \(spareRefusals)")
    }

    @Test func pacersOnSeveralConnectionsNeverGrantMoreThanTheWindowTogether() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let settings = Self.settings(5, window: 10_000, queue: 1_000, maxWait: 1_000_000)
        let pacers = try (0..<3).map { _ in try Self.pacer(uri, settings) }
        let all = await withTaskGroup(of: [Int64].self) { group in
            for (i, pacer) in pacers.enumerated() {
                group.addTask {
                    var grants: [Int64] = []
                    for k in 0..<20 {
                        // Each instance reads its own clock: close but not equal.
                        if case .granted(let g) = await pacer.reserve(app: "app", count: 1 + k % 2, now: 1_000 + Int64(k * 10 + i)) {
                            grants += g
                        }
                    }
                    return grants
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }.sorted()
        #expect(all.count == 90, "every send got a slot: 3 pacers × 20 reservations of 1 or 2")
        for (i, start) in all.enumerated() {
            let inWindow = all[i...].prefix { $0 < start + 10_000 }.count
            #expect(inWindow <= 5, "\(inWindow) sends in the window from \(start)")
        }
        #expect(all.last! >= 1_000 + 17 * 10_000, "90 sends at 5 per 10 s take 17 windows after the first")
    }

    @Test func aDrainOnOneInstanceBlocksTheOthers() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let a = try Self.pacer(uri, Self.settings(10)), b = try Self.pacer(uri, Self.settings(10))
        await a.drain(app: "x", until: 7_000)
        await a.drain(app: "x", until: 3_000)
        #expect(await b.blockedUntil(app: "x") == 7_000, "a drain never moves the block earlier")
        #expect(await b.reserve(app: "x", count: 2, now: 1_000) == .granted([7_000, 7_000]))
    }

    /// Unreachable state is said as such (the caller gets a 503), not as a queue that is full.
    @Test func anUnreachableDatabaseRefusesInsteadOfSendingUnpaced() async throws {
        let cluster = try PostgresTestCluster.start()
        let pacer = try PostgresSendPacer(uri: "postgresql://postgres@127.0.0.1:\(cluster.port == 1 ? 2 : 1)/x?connect_timeout=2", settings: Self.settings(), instance: "test", log: nil)
        #expect(await pacer.reserve(app: "a", count: 1, now: 0) == .unavailable)
    }

    @Test func aPacerWhoseConnectionWasDroppedConnectsAgainByItself() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let pacer = try Self.pacer(uri, Self.settings(100))
        #expect(await pacer.reserve(app: "a", count: 1, now: 1_000) == .granted([1_000]))
        let admin = try PostgresConnection(uri)
        let terminated = try admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        #expect(terminated.value(0, 0) == "1", "the pacer's connection was the one to drop")
        // The call that finds the connection gone refuses (nothing is sent); the next one reconnects.
        _ = await pacer.reserve(app: "a", count: 1, now: 2_000)
        #expect(await pacer.reserve(app: "a", count: 1, now: 3_000) == .granted([3_000]))
        #expect(try admin.execute("SELECT cardinality(slots) FROM pacer_windows WHERE app = 'a'").value(0, 0).flatMap { Int($0) } ?? 0 >= 2)
    }

    @Test func theArrayTextFormReadsBack() {
        #expect(PostgresSendPacer.parseArray("{}") == [])
        #expect(PostgresSendPacer.parseArray("{1,-2,1764561600000}") == [1, -2, 1_764_561_600_000])
    }
}
