import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// The scheduled starts' one owner: one declaration of its table that both engines' migrated
/// databases match, and a connection that no cooperative-pool thread waits on.
@Suite(.serialized) struct ScheduledStartOwnerTests {
    /// The columns of `scheduled_starts` in a freshly migrated database of each engine,
    /// with their declared types, are exactly ``ScheduledStartSchema/columns``.
    @Test func bothEnginesHaveExactlyTheDeclaredColumns() async throws {
        let declared = Dictionary(uniqueKeysWithValues: ScheduledStartSchema.columns.map { ($0.name, $0.type) })
        #expect(declared.count == 19)

        let folder = try TemporaryDirectory("pushbridge-sched")
        let path = folder.path("scheduled.sqlite")
        _ = try ScheduledStartStore(path: path)
        let sqlite = try SQLiteDatabase(path: path).rows("SELECT name, type FROM pragma_table_info('scheduled_starts')")
        let sqliteColumns = Dictionary(uniqueKeysWithValues: sqlite.compactMap { row in row[0].textValue.map { ($0, row[1].textValue ?? "") } })
        #expect(sqliteColumns == declared.mapValues { $0.spelling(postgres: false) })

        let uri = try PostgresTestCluster.start().makeDatabase()
        _ = try ScheduledStartStore(postgres: uri, instance: "a")
        let postgres = try PostgresConnection(uri).execute(
            "SELECT column_name, upper(data_type) FROM information_schema.columns WHERE table_name = 'scheduled_starts'").rows
        let postgresColumns = Dictionary(uniqueKeysWithValues: postgres.compactMap { row in row[0].map { ($0, row[1] ?? "") } })
        #expect(postgresColumns == declared.mapValues { $0.spelling(postgres: true) })
    }

    /// A scheduler file opened before the schema had `created_by` and `claimed_by` gets them
    /// from migration 2, keeps its starts, and is claimed through the one statement set.
    @Test func aFileOfTheFirstSchemaIsMigratedAndItsStartsStillSent() async throws {
        let folder = try TemporaryDirectory("pushbridge-sched")
        let path = folder.path("scheduled.sqlite")
        let old = try SQLiteDatabase(path: path)
        var first = SQLiteMigrator()
        first.register(1, "scheduled starts", sql: ScheduledStartSchema.sqliteFirst)
        _ = try first.migrate(old)
        try old.execute("""
            INSERT INTO scheduled_starts (id, request_id, ordinal, app_name, target_app, send_at, state, activity_type, body, created_at, claimed_at)
            VALUES ('sch_1', 'req_1', 0, 'pw', 'app_3f9c2b', 10000, 'sending', 'T', '{"activity_id": "a1"}', 1, 5)
            """)
        let store = try ScheduledStartStore(path: path, instance: "p")
        let claimed = try await store.claimDue(now: 20_000)
        #expect(claimed.map(\.id) == ["sch_1"], "the start left sending by the old process is pending again and claimed")
        #expect(claimed.first?.request != nil)
    }

    /// Claims waiting on a scheduler file another process holds locked wait on the store's
    /// own queue: the cooperative pool goes on running other work meanwhile. (With a
    /// `Mutex<SQLiteDatabase>` each waiting claim held a pool thread for up to `busy_timeout`.)
    @Test func claimsWaitingOnALockedFileLeaveThePoolFree() async throws {
        let folder = try TemporaryDirectory("pushbridge-sched")
        let path = folder.path("scheduled.sqlite")
        let store = try ScheduledStartStore(path: path, instance: "p")
        try await store.insert([ScheduledStartStoreBackendTests.start(1, sendAt: 10)], now: 1)
        let holder = try SQLiteDatabase(path: path)
        try holder.execute("BEGIN IMMEDIATE")
        let width = ProcessInfo.processInfo.activeProcessorCount * 4
        let claims = (0..<width).map { _ in Task { try await store.claimDue(now: 20_000) } }
        // Every pool thread would be parked in a claim by now if claims blocked them.
        let other = Task { ContinuousClock.now }
        let started = ContinuousClock.now
        let ran = await other.value
        #expect(ran - started < .seconds(2), "a task waited \(ran - started) behind claims waiting on the locked file")
        try holder.execute("COMMIT")
        var ids: [String] = []
        for claim in claims { ids += try await claim.value.map(\.id) }
        #expect(ids == ["sch_1"], "claimed once, once the file was free")
    }
}
