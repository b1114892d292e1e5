import Foundation
import Testing
@testable import PushBridgeServer

/// Issue 30, the rollups on the audit as a log: a day partition retention drops takes that
/// day's counters with it. (Recovery's count of exactly the intents it settles, at start-up and
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
        let connection = try PostgresConnection(uri)
        let tomorrow = (now / 86_400_000 + 1) * 86_400_000
        #expect(try AuditPostgresPartitions.drop(before: tomorrow, on: connection) == 5)
        let (rollups, rows) = try Self.counts(store.reader)
        #expect(rollups == ["forwarded=1"])
        #expect(rollups == rows)
        await store.close()
    }
}
