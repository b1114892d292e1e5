import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 30, "report / readiness over 1,000,000 rows ≤ 2 s": the hourly rollups
/// (``AuditRollupHourSchema``) hold each hour's minute rows added up, whatever wrote them (the
/// writer, recovery, pruning, a migration), and the report and readiness read a window's whole
/// hours from them. ``ReportRollupTests/compare(_:path:_:)`` checks the first with
/// ``expectHoursAreTheirMinutes(_:_:)`` wherever it compares the report with the rows.
@Suite(.serialized) struct HourlyRollupTests {
    /// A rollup value as compared: numbers as text, a real to 3 places (sums in another order).
    static func shown(_ value: SQLiteValue) -> String {
        switch value {
        case .integer(let integer): String(integer)
        case .real(let real): String(format: "%.3f", real)
        case .text(let text): Int64(text).map(String.init) ?? Double(text).map { String(format: "%.3f", $0) } ?? text
        default: "\(value)"
        }
    }

    /// Expects every hourly row to be its hour's minute rows added up, key by key (and no
    /// other hourly row): the sums, the earliest and latest request, the newest example and,
    /// for findings, that example's message as its minute row has it.
    static func expectHoursAreTheirMinutes(_ reader: AuditReader, _ label: String) throws {
        for table in [RollupTable.requests, .findings] {
            let key = Array(table.columns.prefix(table == .requests ? 9 : 7))
            let counters = table.columns.dropFirst(key.count).filter { $0 != "example_message" }
            let figures = counters.map { column in
                switch column {
                case "first_at": "min(first_at)"
                case "last_at", "indexed", "example_request_id", "judged_example_request_id": "max(\(column))"
                default: "sum(\(column))"
                }
            }
            let order = (1...(key.count + 1)).map(String.init).joined(separator: ", ")
            let hours = try reader.query("SELECT hour, \((key + counters).joined(separator: ", ")) FROM \(table.hourTable) ORDER BY \(order)")
            let minutes = try reader.query("""
                SELECT minute / 60, \(key.joined(separator: ", ")), \(figures.joined(separator: ", ")) FROM \(table.minuteTable)
                GROUP BY minute / 60, \(key.joined(separator: ", ")) ORDER BY \(order)
                """)
            #expect(hours.count == minutes.count, "\(label) \(table.hourTable): \(hours.count) rows, the minutes add up to \(minutes.count)")
            for (hour, minute) in zip(hours, minutes) where hour.map(shown) != minute.map(shown) {
                Issue.record("\(label) \(table.hourTable): \(hour.map(shown)) but the minutes give \(minute.map(shown))")
                break
            }
            guard table == .findings else { continue }
            let same = key.map { "m.\($0) = h.\($0)" }.joined(separator: " AND ")
            let orphans = try reader.query("""
                SELECT count(*) FROM \(table.hourTable) h WHERE NOT EXISTS (SELECT 1 FROM \(table.minuteTable) m WHERE m.minute / 60 = h.hour AND \(same)
                    AND m.example_request_id = h.example_request_id AND m.example_message = h.example_message)
                """)
            #expect(orphans.first?.first.map(shown) == "0", "\(label): an hourly example's message is not its minute row's")
        }
    }

    /// The report and readiness over the whole audit read its hours from the hourly rollups:
    /// the minute rows deleted, their totals, finding groups, chart and readiness's route
    /// figures are unchanged (only the busiest minute, read per minute, is gone).
    @Test func theReportReadsWholeHoursFromTheHourlyRollups() async throws {
        try await ReportRollupTests.withWrittenAudit(.sqlite) { path, reader in
            let before = try reader.report()
            let readiness = try reader.readiness()
            #expect(before.totalRequests == ReportRollupTests.rows)
            try SQLiteDatabase(path: path).execute("DELETE FROM rollup_requests; DELETE FROM rollup_findings;")
            let after = try reader.report()
            #expect(after.totalRequests == before.totalRequests && after.routes == before.routes && after.upstream == before.upstream)
            #expect(after.dropped == before.dropped && after.changes == before.changes && after.rejections == before.rejections && after.caveats == before.caveats)
            #expect(after.droppedOverTime == before.droppedOverTime)
            let routes = { (readiness: Readiness) in readiness.apps.flatMap(\.routes).map { "\($0.dialect) \($0.route) \($0.requests) \($0.warnings) \($0.openPushErrors)" } }
            #expect(routes(try reader.readiness()) == routes(readiness))
            // A window of whole minutes inside one hour reads the minutes: none left.
            let start = SyntheticTraffic.start + SyntheticTraffic.span / 2
            let inside = ReportFilter(since: start - start % 3_600_000 + 60_000, until: start - start % 3_600_000 + 50 * 60_000)
            #expect(try reader.report(inside).totalRequests == 0)
        }
    }

    /// An audit from before the hourly rollups (their tables and migration gone) is read from
    /// its rows, and the migration that creates them adds its minutes up: the same report,
    /// readiness and admin page as the rows give.
    @Test func anAuditFromBeforeTheHourlyRollupsIsCountedByItsMigration() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await ReportRollupTests.write(store)
            await store.close()
            let filter = ReportRollupTests.filters()[1]
            let before = try AuditReader(path: path).report(filter)
            try SQLiteDatabase(path: path).execute("""
                DROP TABLE \(AuditRollupHourSchema.requestsTable); DROP TABLE \(AuditRollupHourSchema.findingsTable);
                DELETE FROM pushbridge_migrations WHERE number = \(AuditRollupHourSchema.sqliteNumber);
                """)
            let old = try AuditReader(path: path)
            #expect(!old.hasRollups)
            #expect(try old.report(filter) == before)
            await (try AuditStore(path: path)).close()
            let migrated = try AuditReader(path: path)
            #expect(migrated.hasRollups)
            #expect(try migrated.query("SELECT sum(requests) FROM \(AuditRollupHourSchema.requestsTable)").first?.first?.integerValue == Int64(ReportRollupTests.rows))
            try ReportRollupTests.compare(migrated, path: path, "hours migrated")
        }
    }

    /// The window's split: whole hours, the whole minutes around them, the partial edges.
    @Test func aWindowSplitsIntoHoursMinutesAndEdges() {
        let hour: Int64 = 3_600_000
        let window = RollupWindow(since: 10 * hour - 90_500, until: 13 * hour + 120_250)
        #expect(window.hours.map { "\($0.from ?? -1)..\($0.to ?? -1)" } == "10..13")
        #expect(window.minuteRanges.map { "\($0.from ?? -1)..\($0.to ?? -1)" } == ["599..600", "780..782"])
        #expect(window.edges.count == 2)
        #expect(window.span(ofMinute: 600) == (10 * hour, 11 * hour) && window.span(ofMinute: 599) == (599 * 60_000, 600 * 60_000))
        let short = RollupWindow(since: 10 * hour + 60_000, until: 11 * hour + 60_000)
        #expect(short.hours == nil && short.minuteRanges.count == 1)
        let open = RollupWindow(since: nil, until: nil)
        #expect(open.hours != nil && open.minuteRanges.isEmpty && open.edges.isEmpty)
        #expect(RollupWindow(since: 0, until: 5 * hour, hourly: false).hours == nil)
    }
}
