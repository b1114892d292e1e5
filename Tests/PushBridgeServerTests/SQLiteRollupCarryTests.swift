import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 30, "SQLite rollups carried": the SQLite writer carries rollup counters in memory
/// while operations are queued behind its batch and writes each touched counter row once per
/// interval (``AuditRollupCarry``), behind marks its start-up recovery recounts from
/// (``AuditRollupMarkSchema``, SQLite migration 21). The rollups still equal the log, compared
/// by the report, readiness and the admin page read from them and from the rows
/// (``ReportRollupTests/compare(_:path:_:)``): as soon as the callers are answered, after a crash
/// that left counters unwritten (recounted under another instance name), and before pruning.
@Suite(.serialized) struct SQLiteRollupCarryTests {
    /// The rollup marks the SQLite audit at `path` holds.
    static func marks(_ path: String) throws -> Int64 {
        try SQLiteDatabase(path: path).rows("SELECT count(*) FROM rollup_marks").first?.first?.integerValue ?? -1
    }

    /// Thirty-two callers at once: batches carry their counters while others are queued, and
    /// the last batch, with nothing queued behind it, writes them all: once every caller is
    /// answered the rollups give what the rows give, with no mark left and nothing waited for.
    @Test func busyCallersCarryTheirCountersAndAreAnsweredWithThemWritten() async throws {
        try await withTemporaryAudit { path in
            let store = try RollupCarryTests.store(path, "carry-a")
            try await RollupCarryTests.writeConcurrently(store, 0..<ReportRollupTests.rows, lanes: 32)
            let statistics = store.statistics
            #expect(statistics.carriedRollups > 0, "no batch carried its counters: \(statistics)")
            #expect(statistics.carriedRollups < statistics.transactions, "\(statistics)")
            #expect(try Self.marks(path) == 0, "the carried counters were not written with the last batch")
            let reader = try AuditReader(path: path)
            try ReportRollupTests.compare(reader, path: path, "carried, answered")
            await store.close()
            try ReportRollupTests.compare(reader, path: path, "carried, closed")
        }
    }

    /// One caller after another: nothing is ever queued behind a batch, so nothing is carried
    /// and every answer finds its counters written.
    @Test func sequentialCallersNeverCarry() async throws {
        try await withTemporaryAudit { path in
            let store = try RollupCarryTests.store(path, "seq-a")
            for i in 0..<40 {
                try await ReportRollupTests.write(store, row: i, of: 40)
                let (rollups, rows) = try RollupRecoveryTests.counts(store.reader)
                #expect(rollups == rows, "after row \(i)")
            }
            #expect(store.statistics.carriedRollups == 0)
            await store.close()
        }
    }

    /// A crash while counters are carried: the log has rows the rollups lack (and completions
    /// of intents written before, whose minutes are older). The next start, under another
    /// instance name (the default one changes with the process id), recounts the dead writer's
    /// rows from its earliest mark before it moves its in-flight rows to `unknown`.
    @Test func aCrashWithCarriedCountersIsRecountedAtTheNextStart() async throws {
        try await withTemporaryAudit { path in
            let rows = ReportRollupTests.rows
            let reader = try await RollupCarryTests.crashWithCarriedCounters(path, first: { try RollupCarryTests.store(path, "crash-a") },
                                                                             crashing: { try RollupCarryTests.store(path, "crash-b", holding: true) })
            #expect(try Self.marks(path) > 0)
            let restarted = try RollupCarryTests.store(path, "crash-c")
            await restarted.close()
            #expect(try Self.marks(path) == 0)
            let after = try RollupRecoveryTests.counts(reader)
            #expect(after.rollups == after.rows)
            try ReportRollupTests.compare(reader, path: path, "crash recounted")
            #expect(try reader.report().upstream.outcomes.contains(Count("unknown", rows / 25 - 2)))
        }
    }

    /// A mark is written when the carry starts and when it reaches back to an earlier received
    /// time, not with every carried batch; the recount starts from the earliest.
    @Test func aCarryIsMarkedOnceUntilItReachesBackEarlier() async throws {
        try await withTemporaryAudit { path in
            let store = try RollupCarryTests.store(path, "mark-a", holding: true)
            let base: Int64 = 1_700_000_000_000
            for i in 0..<10 { try await store.record(sampleEntry("M-\(i)", receivedAt: base + 60_000 * Int64(i)), sampleCompletion()) }
            #expect(try Self.marks(path) == 1)
            #expect(store.statistics.carriedRollups == 10)
            try await store.record(sampleEntry("EARLIER", receivedAt: base - 3_600_000), sampleCompletion())
            try await store.record(sampleEntry("LATER", receivedAt: base + 3_600_000), sampleCompletion())
            #expect(try Self.marks(path) == 2)
            let reader = try AuditReader(path: path)
            #expect(try RollupRecoveryTests.counts(reader).rollups == [], "the held counters were written")
            await store.close()
            let reopened = try RollupCarryTests.store(path, "mark-b")
            await reopened.close()
            #expect(try RollupRecoveryTests.counts(reader) == (["forwarded=12"], ["forwarded=12"]))
            try HourlyRollupTests.expectHoursAreTheirMinutes(reader, "recounted from the earliest mark")
        }
    }
}
