import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 30, "readiness over 1,000,000 rows ≤ 2 s": readiness's busiest minute reads its own
/// narrow rollup, `rollup_minute_sends` (``AuditRollupMinuteSendsSchema``), which holds per
/// minute, instance, source app, app name and OpenPush app exactly the sends and requests of
/// the rows it counts (admitted, neither rejected nor unhandled), whatever wrote them: the
/// writer's fold, a completion, recovery, pruning, a dropped day, the migration.
/// ``ReportRollupTests/compare(_:path:_:)`` checks the table against the rows with
/// ``expectMinuteSendsAreTheRows(_:_:)`` wherever it compares the report with the rows.
@Suite(.serialized) struct MinuteSendsRollupTests {
    /// Expects `rollup_minute_sends` to hold, key by key, the requests and OpenPush sends the
    /// log's rows give (rows of requests PushBridge would send to OpenPush), and no other row
    /// with anything counted.
    static func expectMinuteSendsAreTheRows(_ reader: AuditReader, _ label: String) throws {
        let key = AuditRollupMinuteSendsSchema.key.joined(separator: ", ")
        let rolled = try reader.query("""
            SELECT \(key), requests, openpush_sends FROM \(AuditRollupMinuteSendsSchema.table)
            WHERE requests <> 0 OR openpush_sends <> 0 ORDER BY 1, 2, 3, 4, 5
            """)
        let sends = "coalesce(CASE WHEN translated LIKE '[%' THEN json_array_length(translated) END, 1)"
        let columns = AuditRollupMinuteSendsSchema.key.map { $0 == "minute" ? "received_at / 60000" : "coalesce(\($0), '')" }.joined(separator: ", ")
        let rows = try reader.query("""
            SELECT \(columns), count(*), sum(\(sends))
            FROM requests WHERE dialect IS NOT NULL AND route IS NOT NULL AND outcome NOT IN ('rejected', 'unhandled')
            GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
            """)
        #expect(!rows.isEmpty, "\(label): no rows to compare")
        #expect(rolled.count == rows.count, "\(label): \(rolled.count) busiest-minute rows, the log gives \(rows.count)")
        for (row, expected) in zip(rolled, rows) where row.map(HourlyRollupTests.shown) != expected.map(HourlyRollupTests.shown) {
            Issue.record("\(label): \(row.map(HourlyRollupTests.shown)) but the log gives \(expected.map(HourlyRollupTests.shown))")
            break
        }
    }

    /// A minute of `SyntheticTraffic`'s span, Unix ms at its start.
    static let busy = SyntheticTraffic.start - SyntheticTraffic.start % 60_000 + 60_000 * 600
    /// The minute after it.
    static let quiet = busy + 60_000

    /// An entry of `app` to OpenPush app `op-app` at `at`, with `sends` translated notifications (0: no translation).
    static func entry(_ id: String, at: Int64, sends: Int, app: String = "app-busy") -> AuditEntry {
        var entry = sampleEntry(id, receivedAt: at, findings: 0, app: app)
        entry.translated = sends == 0 ? nil : "[" + Array(repeating: #"{"method":"POST"}"#, count: sends).joined(separator: ",") + "]"
        return entry
    }

    /// A refusal in the caller's dialect: no upstream call.
    static func refused(_ at: Int64) -> AuditCompletion {
        AuditCompletion(finishedAt: at + 3, outcome: .rejected, responseStatus: 400, responseBody: #"{"errors":["refused"]}"#)
    }

    /// Writes the two minutes: `busy` has 2 sends PushBridge made and many requests it never
    /// sent (refused before admission, refused after it with 3 notifications each, unhandled
    /// routes, and intents begun as pending then completed as refused); `quiet` has 4 sends
    /// (one request of 3 notifications, one of 1), one of them still in flight.
    static func writeTwoMinutes(_ store: AuditStore) async throws {
        for index in 0..<2 { try await store.record(entry("B-SENT-\(index)", at: busy + 1_000 + Int64(index), sends: 1), sampleCompletion(finishedAt: busy + 2_000)) }
        for index in 0..<10 {
            try await store.record(entry("B-UNAUTH-\(index)", at: busy + 3_000 + Int64(index), sends: 0), refused(busy + 3_000))
            try await store.record(entry("B-RULE-\(index)", at: busy + 4_000 + Int64(index), sends: 3), refused(busy + 4_000))
        }
        for index in 0..<5 {
            var unhandled = entry("B-UNHANDLED-\(index)", at: busy + 5_000 + Int64(index), sends: 0)
            (unhandled.dialect, unhandled.route, unhandled.path) = (nil, nil, "/nowhere/\(index)")
            try await store.record(unhandled, AuditCompletion(finishedAt: busy + 5_010, outcome: .unhandled, responseStatus: 404))
        }
        for index in 0..<3 {
            let begun = entry("B-BEGUN-\(index)", at: busy + 6_000 + Int64(index), sends: 3)
            try await store.begin(begun)
            try await store.finish(begun.requestId, refused(busy + 6_000))
        }
        try await store.record(entry("Q-SENT-0", at: quiet + 1_000, sends: 3), sampleCompletion(finishedAt: quiet + 2_000))
        try await store.begin(entry("Q-FLIGHT-0", at: quiet + 2_000, sends: 1))
    }

    /// Readiness's busiest minute counts only what OpenPush would be sent: the quiet minute's 4
    /// sends (one still in flight), not the busy minute's 2 among 38 refused or unhandled
    /// requests (which would be 2 + 30 + 9 = 41 sends counted by request). Over a window of
    /// whole minutes (the rollup) and one with partial edges (the log), on both engines; the
    /// rows say the same, and the verdict names it.
    @Test(arguments: AuditEngine.allCases)
    func theBusiestMinuteCountsOnlyWhatOpenPushWouldBeSent(_ engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await Self.writeTwoMinutes(store)
            let reader = try AuditReader(path: path)
            #expect(reader.hasMinuteSends)
            try Self.expectMinuteSendsAreTheRows(reader, "\(engine)")
            var settings = ReadinessSettings()
            settings.thresholds.openPushRequestsPerMinute = 3
            for filter in [ReportFilter(), ReportFilter(since: Self.busy - 60_000, until: Self.quiet + 120_000), ReportFilter(since: Self.busy + 500, until: Self.quiet + 30_000)] {
                let readiness = try reader.readiness(filter, settings: settings)
                let busiest = try #require(readiness.apps.first { $0.app == "app-busy" }?.busiestMinute, "\(filter.summary)")
                #expect(busiest.start == Self.quiet && busiest.requests == 4 && busiest.openPushApp == "op-app", "\(filter.summary): \(busiest)")
                #expect(readiness == (try AuditReader.rowsOnly(path).readiness(filter, settings: settings)), "\(filter.summary)")
                let reasons = readiness.apps.first { $0.app == "app-busy" }?.reasons ?? []
                #expect(reasons.contains { $0.contains("had 4 OpenPush sends to OpenPush app op-app") }, "\(reasons)")
            }
            await store.close()
        }
    }

    /// An audit from before the table (it and its migration gone) reads its busiest minute from
    /// `rollup_requests`, and the migration that makes it counts it from the minute rollups:
    /// the same readiness.
    @Test(arguments: AuditEngine.allCases)
    func anAuditFromBeforeTheTableIsCountedByItsMigration(_ engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await ReportRollupTests.write(store)
            try await Self.writeTwoMinutes(store)
            await store.close()
            let before = try AuditReader(path: path).readiness()
            let number = engine == .sqlite ? AuditRollupMinuteSendsSchema.sqliteNumber : AuditRollupMinuteSendsSchema.postgresNumber
            let forget = "DROP TABLE \(AuditRollupMinuteSendsSchema.table); DELETE FROM pushbridge_migrations WHERE number = \(number)"
            if engine == .sqlite { try SQLiteDatabase(path: path).execute(forget) } else { try PostgresConnection(path).executeScript(forget) }
            // Read from the other rollups, the busiest minute from `rollup_requests`.
            let old = try AuditReader(path: path)
            #expect(old.hasRollups && !old.hasMinuteSends)
            #expect(try old.readiness() == before)
            await (try AuditStore(path: path)).close()
            let migrated = try AuditReader(path: path)
            #expect(migrated.hasMinuteSends)
            try Self.expectMinuteSendsAreTheRows(migrated, "\(engine) migrated")
            #expect(try migrated.readiness() == before)
        }
    }

    /// Retention's pruning takes the rows it deletes out of the table: the busy minute's go
    /// with their rows, and of the quiet minute only the send still in flight stays.
    @Test func pruningTakesTheDeletedRowsOut() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await Self.writeTwoMinutes(store)
            await store.close()
            let reader = try AuditReader(path: path)
            // Everything received before 1.5 s into the quiet minute goes, but what is in flight.
            #expect(try reader.prune(olderThanDays: 1, now: Self.quiet + 1_500 + 86_400_000) > 0)
            try Self.expectMinuteSendsAreTheRows(reader, "pruned")
            let left = try reader.query("SELECT minute, sum(openpush_sends) FROM \(AuditRollupMinuteSendsSchema.table) WHERE requests <> 0 GROUP BY minute")
            #expect(left.map { "\($0[0].integerValue ?? 0)=\($0[1].integerValue ?? 0)" } == ["\(Self.quiet / 60_000)=1"])
        }
    }
}
