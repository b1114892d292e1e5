import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// SQLite migration 22 (``AuditOutcomeKeySchema``, issue 30): an outcome row's key is its
/// intent's `request_log` id, `request_outcomes` has no index on `request_id`, every way a
/// completion is written (with its intent, in a later batch, a second time, by recovery after
/// a restart) keys it so, and an old audit moves to it and reads exactly as before.
@Suite(.serialized) struct AuditOutcomeKeyTests {
    /// A file at the migrations before 22, written as the writer before it wrote one: an
    /// intent left open first (so every later outcome row's own rowid differs from its
    /// intent's id), rows written whole, one begun and finished, one `scheduled`.
    static func oldAudit(_ path: String) throws -> SQLiteDatabase {
        let database = try AuditLogTests.migrated(path, before: AuditOutcomeKeySchema.sqliteNumber)
        func write(_ work: AuditOperation.Work) throws { try AuditStatements.apply(work, on: database) }
        func insert(_ entry: AuditEntry, _ completion: AuditCompletion?) throws {
            try write(.insert(row: AuditRowEncoding.requestRow(entry, completion, bodyLimit: 65_536, instance: "old-host"),
                              findings: AuditRowEncoding.findingRows(entry, instance: "old-host")))
        }
        try insert(sampleEntry("OLD-PENDING", receivedAt: 1_700_000_000_000), nil)
        try insert(sampleEntry("OLD-DONE", receivedAt: 1_700_000_001_000), sampleCompletion(finishedAt: 1_700_000_001_120))
        try insert(sampleEntry("OLD-FINISHED", receivedAt: 1_700_000_002_000, findings: 0), nil)
        let finished = AuditCompletionColumns(sampleCompletion(finishedAt: 1_700_000_002_200), outcome: .forwarded, bodyLimit: 65_536)
        try database.execute(Self.oldFinishSQL, finished.all.map(\.value) + [.text("OLD-FINISHED")])
        var scheduled = sampleCompletion(finishedAt: 1_700_000_003_050)
        scheduled.outcome = .scheduled
        try insert(sampleEntry("OLD-SCHEDULED", receivedAt: 1_700_000_003_000, findings: 1, app: "app-2"), scheduled)
        try insert(sampleEntry("OLD-LAST", receivedAt: 1_700_000_004_000, app: "app-2"), sampleCompletion(finishedAt: 1_700_000_004_100))
        #expect(try database.rows("SELECT count(*) FROM request_outcomes o JOIN request_log l ON l.request_id = o.request_id WHERE o.id <> l.id")
                == [[.integer(4)]], "the old file must key its outcome rows apart from their intents, or this test shows nothing")
        return database
    }

    /// The writer's completion before migration 22: the outcome row under a rowid of its own.
    static let oldFinishSQL = """
        INSERT INTO request_outcomes (request_id, received_at, \(AuditStatements.completionColumns.joined(separator: ", ")))
        SELECT l.request_id, l.received_at, \(AuditStatements.completionColumns.map { _ in "?" }.joined(separator: ", ")) FROM request_log l WHERE l.request_id = ?
        """

    /// What the CLI prints (`audit list`, `audit show` of each row, `report`) and what
    /// readiness answers, in JSON.
    static func outputs(_ path: String) async throws -> [String] {
        var commands = [["audit", "list", "--db", path], ["audit", "list", "--db", path, "--format", "json"],
                        ["report", "--db", path, "--format", "json"], ["report", "--db", path]]
        for id in ["OLD-PENDING", "OLD-DONE", "OLD-FINISHED", "OLD-SCHEDULED", "OLD-LAST"] {
            commands += [["audit", "show", id, "--db", path], ["audit", "show", id, "--db", path, "--format", "json"]]
        }
        let readiness = try AuditReader(path: path).readiness(ReportFilter(), settings: ReadinessSettings())
        return try await AuditLogTests.outputs(of: commands) + [ReadinessRendering.render(readiness, as: .json)]
    }

    /// Each outcome row's id and its intent's, by request id.
    static func keys(_ database: SQLiteDatabase) throws -> [[SQLiteValue]] {
        try database.rows("SELECT o.request_id, o.id, l.id FROM request_outcomes o JOIN request_log l ON l.request_id = o.request_id ORDER BY l.id")
    }

    /// Issue 30 item 4: an old audit migrates, its outcome rows move under their intents' ids
    /// (`request_outcomes_id` gone), and `audit list`, `audit show`, `report` and readiness
    /// answer exactly as before; a writer then recovers the open intent `unknown` under its id.
    @Test func anOldAuditMovesItsOutcomesUnderTheirIntentsAndReadsTheSame() async throws {
        try await withTemporaryAudit { path in
            let database = try Self.oldAudit(path)
            let before = try await Self.outputs(path)
            #expect(before[0].contains("OLD-PENDING") && before[0].contains("pending"), "\(before[0])")

            #expect(try AuditSchema.migrator.migrate(database) == [AuditOutcomeKeySchema.sqliteNumber, AuditLogMinutesSchema.sqliteNumber])
            #expect(try database.outcomesKeyedByIntent())
            #expect(try database.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'request_outcomes'")
                    == [[.text(AuditScheduledIndexSchema.indexName)]])
            let keys = try Self.keys(database)
            #expect(keys.map { $0[0] } == ["OLD-DONE", "OLD-FINISHED", "OLD-SCHEDULED", "OLD-LAST"].map { .text($0) })
            #expect(keys.allSatisfy { $0[1] == $0[2] }, "\(keys)")
            #expect(try database.rows("PRAGMA integrity_check") == [[.text("ok")]])

            let after = try await Self.outputs(path)
            #expect(after.count == before.count)
            for (old, new) in zip(before, after) { #expect(old == new) }

            let store = try AuditStore(path: path)
            #expect(store.recoveredPendingCount == 1)
            #expect(try store.reader.show(requestId: "OLD-PENDING")?.outcome == "unknown")
            #expect(try store.reader.unsettledScheduled().map(\.requestId) == ["OLD-SCHEDULED"])
            await store.close()
            #expect(try Self.keys(database).allSatisfy { $0[1] == $0[2] })
        }
    }

    /// `audit prune` on an old file a writer has not opened yet (a reader never migrates)
    /// deletes exactly the rows it deleted before: each outcome found by its own request id
    /// there, not by an intent id that names another request's outcome.
    @Test func pruningAnOldFileBeforeItsMigrationDeletesTheSameRows() async throws {
        try await withTemporaryAudit { path in
            let database = try Self.oldAudit(path)
            let pruned = try await CLIRunner.runAsync(["audit", "prune", "--db", path, "--older-than-days", "1"])
            #expect(pruned.status == 0, "\(pruned.stderr)")
            #expect(try database.rows("SELECT request_id FROM request_log ORDER BY id") == [[.text("OLD-PENDING")], [.text("OLD-SCHEDULED")]])
            #expect(try database.rows("SELECT request_id FROM request_outcomes") == [[.text("OLD-SCHEDULED")]])
            #expect(try database.rows("SELECT request_id, outcome FROM requests ORDER BY id")
                    == [[.text("OLD-PENDING"), .text("pending")], [.text("OLD-SCHEDULED"), .text("scheduled")]])
        }
    }

    /// The writer keys every outcome row by its intent: written with it (`record`), in the
    /// same or a later batch (`finish`), a second time (replacing the first, no second row), a
    /// scheduled request's completion, and recovery's `unknown` of an intent left open by a
    /// stopped writer (and its completion after the restart).
    @Test func everyCompletionTakesItsIntentsId() async throws {
        try await withTemporaryAudit { path in
            let first = try AuditStore(path: path)
            try await first.begin(sampleEntry("OPEN-AT-STOP", receivedAt: 1_700_000_000_000))
            try await first.begin(sampleEntry("BEGUN", receivedAt: 1_700_000_001_000))
            try await first.record(sampleEntry("WHOLE", receivedAt: 1_700_000_002_000), sampleCompletion(finishedAt: 1_700_000_002_100))
            var scheduled = sampleCompletion(finishedAt: 1_700_000_003_100)
            scheduled.outcome = .scheduled
            try await first.record(sampleEntry("SCHEDULED", receivedAt: 1_700_000_003_000), scheduled)
            try await first.begin(sampleEntry("SAME-BATCH", receivedAt: 1_700_000_004_000))
            try await first.finish("SAME-BATCH", sampleCompletion(finishedAt: 1_700_000_004_100))
            // A later batch completes an intent of an earlier one, then completes it again.
            try await first.finish("BEGUN", sampleCompletion(finishedAt: 1_700_000_001_100))
            var again = sampleCompletion(finishedAt: 1_700_000_001_200)
            again.upstreamStatus = 202
            try await first.finish("BEGUN", again)
            let sent = AuditCompletion(finishedAt: 1_700_000_060_000, outcome: .sent, upstreamStatus: 201, responseStatus: 200, responseBody: #"{"id":"sch"}"#)
            try await first.run(.completeScheduled("SCHEDULED", sent, onlyWhileScheduled: true, bodyLimit: first.configuration.bodyLimit))
            await first.close()

            let second = try AuditStore(path: path)
            #expect(second.recoveredPendingCount == 1)
            let database = try SQLiteDatabase(path: path)
            var keys = try Self.keys(database)
            #expect(keys.map { $0[0] } == ["OPEN-AT-STOP", "BEGUN", "WHOLE", "SCHEDULED", "SAME-BATCH"].map { .text($0) })
            #expect(keys.allSatisfy { $0[1] == $0[2] }, "\(keys)")
            #expect(try second.reader.show(requestId: "OPEN-AT-STOP")?.outcome == "unknown")
            #expect(try second.reader.show(requestId: "BEGUN")?.upstreamStatus == 202)
            #expect(try second.reader.show(requestId: "SCHEDULED")?.outcome == "sent")
            // A completion after the restart of the intent recovery settled replaces `unknown`.
            try await second.finish("OPEN-AT-STOP", sampleCompletion(finishedAt: 1_700_000_000_500))
            #expect(try second.reader.show(requestId: "OPEN-AT-STOP")?.outcome == "forwarded")
            keys = try Self.keys(database)
            #expect(keys.count == 5 && keys.allSatisfy { $0[1] == $0[2] }, "\(keys)")
            #expect(try database.rows("SELECT count(*) FROM sqlite_schema WHERE name = ?", [.text(AuditOutcomeKeySchema.droppedIndex)]) == [[.integer(0)]])
            await second.close()
        }
    }
}
