import Foundation
import Synchronization
import Testing
@testable import PushBridgeServer

/// Numbered PostgreSQL migrations under the advisory lock.
@Suite(.serialized) struct PostgresMigratorTests {
    @Test func severalProcessesMigratingAFreshDatabaseAtOnceAllSucceedAndApplyItOnce() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let count = 6
        let failures = Mutex<[String]>([])
        let applied = Mutex<[[Int]]>([])
        // Each connects first, then all wait for the last one before migrating.
        let connected = DispatchGroup()
        for _ in 0..<count { connected.enter() }
        onThreads(count) { _ in
            let connection: PostgresConnection
            do {
                connection = try PostgresConnection(uri)
                connected.leave()
            } catch {
                connected.leave()
                failures.withLock { $0.append(String(describing: error)) }
                return
            }
            do {
                connected.wait()
                let numbers = try PostgresSchema.migrator.migrate(connection)
                applied.withLock { $0.append(numbers) }
            } catch {
                failures.withLock { $0.append(String(describing: error)) }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let all = PostgresSchema.migrations.map(\.number).sorted()
        // Exactly one migrator applied everything; the others found it done.
        #expect(applied.withLock { $0 }.filter { !$0.isEmpty } == [all])
        #expect(applied.withLock { $0 }.count == count)
        let check = try PostgresConnection(uri)
        let recorded = try check.execute("SELECT number FROM pushbridge_migrations ORDER BY number").rows.map { $0[0] }
        #expect(recorded == all.map { String($0) })
        #expect(try PostgresSchema.migrator.migrate(check) == [])
        let tables = try check.execute("""
            SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'instance_name'
                AND table_name NOT LIKE 'request\\_log\\_%'
            """).value(0, 0)
        #expect(tables == "15", "requests (a view), request_log (not its partitions), audit_marks, findings, shadow_comparisons, scheduled_sends, rollout_rollbacks, stage_changes, rollup_requests, rollup_findings, their hourly tables, rollup_shadow_hourly, rollup_minute_sends and rollup_marks carry instance_name")
    }

    @Test func aFailingMigrationLeavesNothingAndAnUnknownNumberIsRefused() throws {
        let connection = try PostgresConnection(try PostgresTestCluster.start().makeDatabase())
        let broken = PostgresMigrator([.init(1, "good", sql: "CREATE TABLE a (x INTEGER)"), .init(2, "bad", sql: "CREATE TABLE b (x NOPE)")])
        #expect(throws: PostgresError.self) { try broken.migrate(connection) }
        #expect(try broken.appliedNumbers(connection) == [])
        #expect(try connection.execute("SELECT to_regclass('a') IS NULL").value(0, 0) == "t")

        let newer = PostgresMigrator([.init(1, "good", sql: "CREATE TABLE a (x INTEGER)"), .init(7, "later", sql: "CREATE TABLE c (x INTEGER)")])
        #expect(try newer.migrate(connection) == [1, 7])
        #expect {
            try PostgresMigrator([.init(1, "good", sql: "CREATE TABLE a (x INTEGER)")]).migrate(connection)
        } throws: { error in
            String(describing: error).contains("migration 7, which this build does not know")
        }
    }
}
