import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// SQLite migration 23 (``AuditLogMinutesSchema``, issue 30): the log has no index on time;
/// `request_log_minutes` holds each minute's lowest and highest log id, kept by the writer and
/// by the view's triggers, and every reader of a time window reads the id range its minutes
/// cover, answering exactly what the index answered, also for rows whose `received_at` runs
/// against their id.
@Suite(.serialized) struct AuditLogMinutesTests {
    /// A minute's start (Unix ms): the rows below fall in its minute and the three after it.
    static let m0: Int64 = 28_333_334 * 60_000

    /// Rows in write order (so in id order), their received times against that order: a late
    /// row of an earlier minute, the newest id received first of all.
    static let rows: [(id: String, at: Int64, app: String, outcome: AuditOutcome?)] = [
        ("R-A", m0 + 130_000, "app-1", .forwarded), ("R-B", m0 + 5_000, "app-1", .forwarded), ("R-C", m0 + 90_000, "app-1", nil),
        ("R-D", m0 + 59_000, "app-2", .forwarded), ("R-E", m0 + 121_000, "app-1", .scheduled), ("R-F", m0 + 60_001, "app-2", .failed),
        ("R-G", m0 + 180_500, "app-2", .forwarded), ("R-H", m0 + 10, "app-1", .forwarded),
    ]

    /// Windows `[since, until)` on and off minutes, one empty, one beyond the rows, two ending
    /// inside the third minute (the writer's open one in ``AuditLogOpenMinuteTests``).
    static let windows: [(since: Int64?, until: Int64?)] = [
        (nil, nil), (m0 + 30_000, m0 + 150_000), (m0 + 60_000, m0 + 120_000), (m0 + 59_000, m0 + 59_001), (m0 + 121_000, nil),
        (nil, m0 + 60_001), (m0 + 10_000, m0 + 10_000), (m0 + 600_000, nil), (nil, m0), (m0 + 60_000, m0 + 126_000),
    ]

    /// A completion of `outcome` for row `at`.
    static func completion(_ outcome: AuditOutcome, at: Int64) -> AuditCompletion {
        var completion = sampleCompletion(finishedAt: at + 100)
        completion.outcome = outcome
        return completion
    }

    /// A file at the migrations before 23 holding ``rows``, written as the writer before it
    /// wrote them (through the `requests` view).
    static func oldAudit(_ path: String) throws -> SQLiteDatabase {
        let database = try AuditLogTests.migrated(path, before: AuditLogMinutesSchema.sqliteNumber)
        for row in rows {
            let entry = sampleEntry(row.id, receivedAt: row.at, findings: row.id == "R-F" ? 2 : 1, app: row.app)
            try AuditStatements.apply(.insert(row: AuditRowEncoding.requestRow(entry, row.outcome.map { completion($0, at: row.at) }, bodyLimit: 65_536,
                                                                                instance: "old-host"),
                                              findings: AuditRowEncoding.findingRows(entry, instance: "old-host")), on: database)
        }
        // Counted into the rollups as the writer counts its rows (the report reads them).
        try AuditRollupRows.fill(database)
        return database
    }

    /// `(t)` as the CLI reads it: Unix milliseconds.
    static func time(_ t: Int64) -> String { String(t) }

    /// What the CLI prints over each window (`audit list` at several limits, `report`, text
    /// and JSON) and `audit show` of each row, then readiness over each window in JSON.
    static func outputs(_ path: String) async throws -> [String] {
        var commands: [[String]] = []
        for window in windows {
            let bounds = (window.since.map { ["--since", time($0)] } ?? []) + (window.until.map { ["--until", time($0)] } ?? [])
            for limit in ["1", "2", "3", "50"] { commands.append(["audit", "list", "--db", path, "--limit", limit, "--format", "json"] + bounds) }
            commands += [["audit", "list", "--db", path] + bounds, ["report", "--db", path, "--format", "json"] + bounds, ["report", "--db", path] + bounds]
        }
        for row in rows { commands.append(["audit", "show", row.id, "--db", path, "--format", "json"]) }
        let reader = try AuditReader(path: path)
        let readiness = try windows.map { window in
            try ReadinessRendering.render(reader.readiness(ReportFilter(since: window.since, until: window.until), settings: ReadinessSettings()), as: .json)
        }
        return try await AuditLogTests.outputs(of: commands) + readiness
    }

    /// Every minute's lowest and highest id, counted from the log itself.
    static func minutesOfLog(_ database: SQLiteDatabase) throws -> [[SQLiteValue]] {
        try database.rows("SELECT received_at / 60000, min(id), max(id) FROM request_log GROUP BY 1 ORDER BY 1")
    }

    /// `audit list`'s answer over a window, counted in Swift from every row: the oracle.
    static func expectedList(_ database: SQLiteDatabase, since: Int64?, until: Int64?, limit: Int) throws -> [String] {
        let all = try database.rows("SELECT request_id, received_at, id FROM request_log")
            .map { (id: $0[0].textValue ?? "", at: $0[1].integerValue ?? 0, rowid: $0[2].integerValue ?? 0) }
        return all.filter { row in since.map { row.at >= $0 } ?? true && until.map { row.at < $0 } ?? true }
            .sorted { ($0.at, $0.rowid) > ($1.at, $1.rowid) }.prefix(limit).map(\.id)
    }

    /// The reader's `list` over every window and limit is the oracle's.
    static func expectListsMatch(_ path: String, _ database: SQLiteDatabase) throws {
        let reader = try AuditReader(path: path)
        for window in windows {
            for limit in [1, 2, 3, 50] {
                let listed = try reader.list(limit: limit, since: window.since, until: window.until).map(\.requestId)
                #expect(listed == (try expectedList(database, since: window.since, until: window.until, limit: limit)), "\(window) limit \(limit)")
            }
        }
    }

    /// Issue 30 item 4: an old audit loses `request_log_time`, gains its minutes (every row's
    /// id inside its minute's range), and `audit list` (every window and limit), `audit show`,
    /// `report` and readiness over every window answer exactly as before.
    @Test func anOldAuditLosesItsTimeIndexAndReadsTheSame() async throws {
        try await withTemporaryAudit { path in
            let database = try Self.oldAudit(path)
            let before = try await Self.outputs(path)
            #expect(before[0].contains("R-G"), "\(before[0])")

            #expect(try AuditSchema.migrator.migrate(database) == [AuditLogMinutesSchema.sqliteNumber])
            #expect(try database.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'request_log' AND sql IS NOT NULL")
                    == [[.text("request_log_id")]])
            #expect(try database.rows("SELECT minute, first_id, last_id FROM request_log_minutes ORDER BY minute") == (try Self.minutesOfLog(database)))
            #expect(try database.rows("PRAGMA integrity_check") == [[.text("ok")]])

            let after = try await Self.outputs(path)
            #expect(after.count == before.count)
            for (old, new) in zip(before, after) { #expect(old == new) }
            try Self.expectListsMatch(path, database)
        }
    }

    /// The writer notes every intent's minute (begun alone, with its outcome, late rows of an
    /// earlier minute, across a restart and its recovery), so every window lists exactly the
    /// oracle's rows and, once it closed, the minutes are exactly the log's.
    @Test func theWriterNotesEveryIntentsMinute() async throws {
        try await withTemporaryAudit { path in
            let first = try AuditStore(path: path)
            for row in Self.rows.prefix(5) {
                let entry = sampleEntry(row.id, receivedAt: row.at, app: row.app)
                if let outcome = row.outcome { try await first.record(entry, Self.completion(outcome, at: row.at)) } else { try await first.begin(entry) }
            }
            await first.close()
            let second = try AuditStore(path: path)
            for row in Self.rows.dropFirst(5) {
                try await second.begin(sampleEntry(row.id, receivedAt: row.at, app: row.app))
                try await second.finish(row.id, Self.completion(row.outcome ?? .forwarded, at: row.at))
            }
            let database = try SQLiteDatabase(path: path)
            #expect(try database.rows("SELECT count(*) FROM sqlite_schema WHERE name = 'request_log_time'") == [[.integer(0)]])
            try Self.expectListsMatch(path, database)
            await second.close()
            #expect(try database.rows("SELECT minute, first_id, last_id FROM request_log_minutes ORDER BY minute") == (try Self.minutesOfLog(database)))
        }
    }

    /// `audit prune` deletes the same rows (and keeps the same report) on an old file not yet
    /// migrated (through its index on time) and on the same file migrated (through the minutes),
    /// where the minutes left without a row are deleted too, so the table shrinks with the log.
    @Test func pruningReadsTheMinutesAndDeletesTheSameRows() async throws {
        try await withTemporaryDirectory("pushbridge-minutes") { directory in
            let now = AuditClock.nowMilliseconds()
            var results: [[String]] = []
            for migrate in [false, true] {
                let path = directory.path(migrate ? "migrated.sqlite" : "old.sqlite")
                let database = try Self.oldAudit(path)
                // Rows of today, which the prune keeps, written after the old ones.
                let recent = sampleEntry("R-NOW", receivedAt: now - 1_000)
                try AuditStatements.apply(.insert(row: AuditRowEncoding.requestRow(recent, sampleCompletion(finishedAt: now - 900), bodyLimit: 65_536, instance: "old-host"),
                                                  findings: []), on: database)
                try AuditRollupRows.fill(database)
                if migrate { #expect(try AuditSchema.migrator.migrate(database) == [AuditLogMinutesSchema.sqliteNumber]) }
                let pruned = try await CLIRunner.runAsync(["audit", "prune", "--db", path, "--older-than-days", "1"])
                #expect(pruned.status == 0, "\(pruned.stderr)")
                let report = try await CLIRunner.runAsync(["report", "--db", path, "--format", "json"])
                if migrate {
                    // The minutes whose rows all went are gone too (0 and 3 here); those still holding
                    // a kept row (R-C's, R-E's, R-NOW's) stay.
                    #expect(try database.rows("SELECT minute FROM request_log_minutes ORDER BY minute")
                            == (try Self.minutesOfLog(database)).map { [$0[0]] })
                    #expect(try database.rows("SELECT count(*) FROM request_log_minutes") == [[.integer(3)]])
                }
                results.append([pruned.stdout.replacingOccurrences(of: path, with: "FILE"), report.stdout]
                               + (try database.rows("SELECT request_id, outcome FROM requests ORDER BY id").map { ($0[0].textValue ?? "") + " " + ($0[1].textValue ?? "") }))
            }
            #expect(results[1] == results[0])
            #expect(Array(results[0].dropFirst(2)) == ["R-C pending", "R-E scheduled", "R-NOW forwarded"], "\(results[0])")
        }
    }
}
