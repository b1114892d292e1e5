import Foundation
import Testing
@testable import PushBridgeServer

/// Issue 30, the rollups on the audit as a log: a day partition retention drops takes that
/// day's counters with it, and readiness's counters are counted from the rows already there. (Recovery's count of exactly the intents it settles, at start-up and
/// on a takeover, is checked by `AuditLogTests` and `AuditRecoveryTests` with ``counts(_:)``.)
@Suite(.serialized) struct RollupRecoveryTests {
    /// Per outcome, `outcome=n`: the requests the rollups count and the rows the log holds.
    static func counts(_ reader: AuditReader) throws -> (rollups: [String], rows: [String]) {
        func text(_ rows: [[SQLiteValue]]) -> [String] { rows.map { "\($0[0].textValue ?? "")=\($0[1].integerValue ?? -1)" } }
        let rolled = try reader.query("SELECT outcome, sum(requests) FROM rollup_requests GROUP BY outcome HAVING sum(requests) != 0 ORDER BY outcome")
        let rows = try reader.query("SELECT outcome, count(*) FROM requests GROUP BY outcome ORDER BY outcome")
        return (text(rolled), text(rows))
    }

    /// Retention drops today's partition whole: the rollups lose that day's counters and keep
    /// the rest (a row of another day, in the default partition).
    @Test func aDroppedDayTakesItsCountersWithIt() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let store = try AuditStore(path: uri)
        let now = AuditClock.nowMilliseconds()
        for index in 0..<5 {
            try await store.record(sampleEntry("TODAY-\(index)", receivedAt: now), sampleCompletion(finishedAt: now + 5))
        }
        try await store.record(sampleEntry("OLD"), sampleCompletion())
        #expect(try Self.counts(store.reader).rollups == ["forwarded=6"])
        #expect(try Self.judged(store.reader) == 6)
        let connection = try PostgresConnection(uri)
        let tomorrow = (now / 86_400_000 + 1) * 86_400_000
        #expect(try AuditPostgresPartitions.drop(before: tomorrow, on: connection) == 5)
        let (rollups, rows) = try Self.counts(store.reader)
        #expect(rollups == ["forwarded=1"])
        #expect(rollups == rows)
        #expect(try Self.judged(store.reader) == 1)
        // The day's hours go too: the hourly rows are still the minutes' added up.
        #expect(try store.reader.query("SELECT sum(requests) FROM \(AuditRollupHourSchema.requestsTable)").first?.first?.integerValue == 1)
        try HourlyRollupTests.expectHoursAreTheirMinutes(store.reader, "dropped day")
        // And the busiest minute's counters of that day.
        try MinuteSendsRollupTests.expectMinuteSendsAreTheRows(store.reader, "dropped day")
        await store.close()
    }

    /// The requests `rollup_findings` counts with a finding readiness judges (each sample
    /// entry has one: its warning-severity drop).
    static func judged(_ reader: AuditReader) throws -> Int64 {
        try reader.query("SELECT coalesce(sum(judged_requests), 0) FROM rollup_findings").first?.first?.integerValue ?? -1
    }

    /// Issue 30, item 2: an audit whose rollups predate readiness's counters (migration 13 /
    /// PostgreSQL 10) gets them counted from its rows by the migration that adds them (on
    /// PostgreSQL by the first writer to start): judged findings and OpenPush calls, the
    /// requests' counters recounted equal.
    @Test(arguments: AuditEngine.allCases)
    func theReadinessCountersAreCountedFromTheRowsByTheirMigration(_ engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            for index in 0..<4 { try await store.record(sampleEntry("R-\(index)", receivedAt: 1_700_000_000_000 + Int64(index) * 61_000), sampleCompletion()) }
            await store.close()
            let number = engine == .sqlite ? AuditRollupReadinessSchema.sqliteNumber : AuditRollupReadinessSchema.postgresNumber
            let drop = AuditRollupReadinessSchema.findingCounters.map { "ALTER TABLE rollup_findings DROP COLUMN \($0); " }.joined()
                + AuditRollupReadinessSchema.requestCounters.map { "ALTER TABLE rollup_requests DROP COLUMN \($0); " }.joined()
                + "DELETE FROM pushbridge_migrations WHERE number = \(number);"
            if engine == .sqlite { try SQLiteDatabase(path: path).execute(drop) } else { try PostgresConnection(path).executeScript(drop) }
            #expect(try !AuditReader(path: path).hasRollups)
            let reopened = try AuditStore(path: path)
            try await reopened.record(sampleEntry("R-4", receivedAt: 1_700_000_000_000 + 4 * 61_000), sampleCompletion())
            let reader = try AuditReader(path: path)
            #expect(reader.hasRollups)
            #expect(try Self.judged(reader) == 5)
            #expect(try reader.query("SELECT sum(openpush_calls) FROM rollup_requests").first?.first?.integerValue == 5)
            #expect(try reader.query("SELECT max(judged_example_request_id) FROM rollup_findings").first?.first?.textValue == "R-4")
            let (rollups, rows) = try Self.counts(reader)
            #expect(rollups == ["forwarded=5"] && rollups == rows)
            await reopened.close()
        }
    }
}
