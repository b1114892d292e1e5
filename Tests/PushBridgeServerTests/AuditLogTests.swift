import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The SQLite audit as a log (issue 30, migration 12, ``AuditLogSchema``): an old audit moves
/// into it and reads the same, the hot tables keep at most two secondary indexes, and an intent
/// a crash left without its completion is recovered `unknown` with what was to be sent.
@Suite(.serialized) struct AuditLogTests {
    /// A file at the migrations before 12, written the way the old writer wrote it (one
    /// `requests` row per request, completed by an `UPDATE`): a forwarded row, a scheduled
    /// one, one begun and finished, and one left `pending`.
    static func oldAudit(_ path: String) throws {
        let database = try migrated(path, before: AuditLogSchema.number)
        #expect(try database.isAuditLog() == false)
        func write(_ work: AuditOperation.Work) throws { try AuditStatements.apply(work, on: database) }
        func insert(_ entry: AuditEntry, _ completion: AuditCompletion?) throws {
            try write(.insert(row: AuditRowEncoding.requestRow(entry, completion, bodyLimit: 65_536, instance: "old-host"),
                              findings: AuditRowEncoding.findingRows(entry, instance: "old-host")))
        }
        try insert(sampleEntry("OLD-DONE", receivedAt: 1_700_000_000_000), sampleCompletion(finishedAt: 1_700_000_000_120))
        var scheduled = sampleCompletion(finishedAt: 1_700_000_001_050)
        scheduled.outcome = .scheduled
        try insert(sampleEntry("OLD-SCHEDULED", receivedAt: 1_700_000_001_000, findings: 1, app: "app-2"), scheduled)
        try insert(sampleEntry("OLD-FINISHED", receivedAt: 1_700_000_002_000, findings: 0), nil)
        let finished = AuditCompletionColumns(sampleCompletion(finishedAt: 1_700_000_002_200), outcome: .forwarded, bodyLimit: 65_536)
        try write(.finish(requestId: "OLD-FINISHED", values: finished.all.map(\.value) + [.text("OLD-FINISHED")]))
        try insert(sampleEntry("OLD-PENDING", receivedAt: 1_700_000_003_000), nil)
    }

    /// The file at `path`, migrated through the migrations numbered below `number` only.
    static func migrated(_ path: String, before number: Int) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path)
        var old = SQLiteMigrator()
        for migration in AuditSchema.migrator.migrations where migration.number < number {
            old.register(migration.number, migration.name, migration.apply)
        }
        _ = try old.migrate(database)
        return database
    }

    /// What the CLI prints of an audit: list (text and JSON), show (text and JSON) of each row, report (JSON and text).
    static func cliOutputs(_ path: String) async throws -> [String] {
        var commands = [["audit", "list", "--db", path], ["audit", "list", "--db", path, "--format", "json"],
                        ["report", "--db", path, "--format", "json"], ["report", "--db", path]]
        for id in ["OLD-DONE", "OLD-SCHEDULED", "OLD-FINISHED", "OLD-PENDING"] {
            commands += [["audit", "show", id, "--db", path], ["audit", "show", id, "--db", path, "--format", "json"]]
        }
        return try await outputs(of: commands)
    }

    /// What each CLI command prints, each expected to succeed.
    static func outputs(of commands: [[String]]) async throws -> [String] {
        var outputs: [String] = []
        for command in commands {
            let run = try await CLIRunner.runAsync(command)
            #expect(run.status == 0, "\(command): \(run.stderr)")
            outputs.append(run.stdout)
        }
        return outputs
    }

    /// Issue 30 item 4: an audit from before the log migrates, its rows move (the old table
    /// and its seven indexes gone), and `audit list`, `audit show` and `report` print exactly
    /// what they printed before; the row left `pending` reads `pending` until a writer opens the
    /// file, which recovers it `unknown` with its translated body.
    @Test func anAuditFromBeforeTheLogMigratesAndTheCLIPrintsTheSame() async throws {
        try await withTemporaryAudit { path in
            try Self.oldAudit(path)
            let before = try await Self.cliOutputs(path)
            #expect(before[0].contains("OLD-PENDING") && before[0].contains("pending"), "\(before[0])")

            let database = try SQLiteDatabase(path: path)
            #expect(try AuditSchema.migrator.migrate(database) == [AuditLogSchema.number, AuditRollupSchema.sqliteNumber, AuditRollupReadinessSchema.sqliteNumber,
                                                                     AuditScheduledIndexSchema.sqliteNumber, AuditAnswerOnceSchema.sqliteNumber, AuditRollupHourSchema.sqliteNumber,
                                                                     AuditFindingsInlineSchema.sqliteNumber, AuditRollupShadowSchema.sqliteNumber, AuditRollupMinuteSendsSchema.sqliteNumber,
                                                                     AuditRollupMarkSchema.sqliteNumber, AuditOutcomeKeySchema.sqliteNumber,
                                                                     AuditLogMinutesSchema.sqliteNumber])
            #expect(try database.isAuditLog())
            #expect(try database.rows("SELECT type FROM sqlite_schema WHERE name = 'requests'") == [[.text("view")]])
            #expect(try database.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'requests%'").isEmpty)
            #expect(try database.rows("SELECT count(*) FROM request_log") == [[.integer(4)]])
            #expect(try database.rows("SELECT request_id FROM request_outcomes ORDER BY id")
                    == [[.text("OLD-DONE")], [.text("OLD-SCHEDULED")], [.text("OLD-FINISHED")]])
            #expect(try database.rows("PRAGMA integrity_check") == [[.text("ok")]])

            let after = try await Self.cliOutputs(path)
            #expect(after.count == before.count)
            for (old, new) in zip(before, after) { #expect(old == new) }

            let store = try AuditStore(path: path)
            #expect(store.recoveredPendingCount == 1)
            let recovered = try #require(try store.reader.show(requestId: "OLD-PENDING"))
            #expect(recovered.outcome == "unknown")
            #expect(recovered.entry.translated == #"[{"method":"POST"}]"#)
            #expect(try store.reader.show(requestId: "OLD-SCHEDULED")?.outcome == "scheduled")
            // Migration 13 counted the old rows; recovery moved the old pending one to `unknown` there too.
            let (rollups, rows) = try RollupRecoveryTests.counts(store.reader)
            #expect(rollups.contains("unknown=1") && !rollups.contains { $0.hasPrefix("pending=") }, "\(rollups)")
            #expect(rollups == rows)
            await store.close()
        }
    }

    /// Issue 30 item 1: the tables every request writes keep at most two secondary indexes
    /// (`request_log`: its id; `request_outcomes`: none, keyed by its intent's
    /// id, but for the partial index of the few `scheduled` rows), read from `sqlite_schema`.
    @Test func theHotTablesKeepAtMostTwoSecondaryIndexes() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await store.begin(sampleEntry("IDX"))
            try await store.finish("IDX", sampleCompletion())
            await store.close()
            let database = try SQLiteDatabase(path: path)
            func indexes(_ table: String) throws -> [String] {
                try database.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? ORDER BY name", [.text(table)])
                    .compactMap { $0.first?.textValue }
            }
            // Migration 23 dropped `request_log_time`: the log is read by time through its minutes (``AuditLogMinutesSchema``).
            #expect(try indexes("request_log") == ["request_log_id"])
            // Migration 15 added the partial index of the `scheduled` outcomes (only those rows).
            // Migration 22 keyed each outcome row by its intent's id: no index on `request_id` (``AuditOutcomeKeySchema``).
            #expect(try indexes("request_outcomes") == [AuditScheduledIndexSchema.indexName])
            #expect(try database.rows("SELECT type FROM sqlite_schema WHERE name = 'requests'") == [[.text("view")]])
            // Migration 14 dropped findings_by_field: findings keep their primary key (the table, WITHOUT ROWID) alone.
            #expect(try indexes("findings").isEmpty)
        }
    }

    /// PostgreSQL's `findings` keep no index of their own: migration 11 left the primary key
    /// alone, and migration 14 made `findings` a view over the intents' lists.
    @Test func postgresFindingsKeepNoIndexOfTheirOwn() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        await (try AuditStore(path: uri)).close()
        let indexes = try AuditReader(path: uri).query("SELECT indexname FROM pg_indexes WHERE tablename = 'findings' AND schemaname = current_schema() ORDER BY 1")
        #expect(indexes.isEmpty)
        #expect(try PostgresConnection(uri).execute("SELECT relkind FROM pg_class WHERE relname = 'findings'").value(0, 0) == "v")
    }

    /// The readers' id range of the window `[1, 2)` on the log id `column`.
    static func window(_ column: String) -> String {
        AuditLogMinutesSchema.idBounds(column, since: 1, until: 2).joined(separator: " AND ")
    }

    /// Issue 30, item 2: with the report's and readiness's totals on the rollups, what still
    /// reads the log reads it by request id or by time: `audit list` and drill-down by
    /// `received_at` inside the id range of its minutes (``AuditLogMinutesSchema``: no index on
    /// time), `audit show` and every example's message by request id, a window's edge minutes
    /// by time, the findings of those requests by their intent's id. No query scans
    /// `request_log` or `findings` whole.
    @Test(arguments: [
        "SELECT request_id FROM requests WHERE received_at >= 1 AND received_at < 2 AND \(window("id")) ORDER BY received_at DESC LIMIT 50",
        "SELECT * FROM requests WHERE request_id = 'X'",
        "SELECT field, kind, severity, message FROM findings WHERE request_id = 'X' ORDER BY ordinal",
        "SELECT f.field, f.message FROM findings f WHERE f.request_id = 'X' AND f.kind = 'dropped' ORDER BY f.ordinal",
        "SELECT request_id, ordinal FROM findings WHERE request_id IN (SELECT request_id FROM requests WHERE received_at >= 1 AND received_at < 2 AND \(window("id"))) ORDER BY request_id, ordinal",
        "SELECT r.dialect, f.field, count(DISTINCT f.request_id) FROM findings f JOIN requests r ON r.request_id = f.request_id WHERE r.received_at >= 1 AND r.received_at < 2 AND \(window("r.id")) GROUP BY 1, 2",
        "SELECT max(r.request_id) FROM requests r WHERE r.outcome IN ('forwarded', 'failed') AND r.received_at >= 1 AND r.received_at < 2 AND \(window("r.id"))",
        // Pruning's candidates: the log's start through the cutoff minute's highest id.
        AuditPruning.candidatesByMinutesSQL.replacingOccurrences(of: "?1", with: "2").replacingOccurrences(of: "?2", with: "50"),
        // Pruning's findings read (a join to the view materialized the whole log per batch).
        AuditRollupRows.findingsOfRequestsSQL(count: 3).replacingOccurrences(of: "?", with: "'X'"),
    ])
    func whatReadsTheLogReadsItByIdOrTime(_ sql: String) async throws {
        // Not a scan: the window reads only the id range of its minutes.
        try await withTemporaryAudit { path in
            await (try AuditStore(path: path)).close()
            let plan = try SQLiteDatabase(path: path).rows("EXPLAIN QUERY PLAN " + sql).compactMap { $0.last?.textValue }
            // `SCAN … VIRTUAL TABLE` is `json_each` over the list of one intent found by id
            // (findings inline since SQLite migration 18), not a scan of a table.
            #expect(!plan.contains { $0.hasPrefix("SCAN ") && !$0.hasSuffix("VIRTUAL TABLE INDEX 1:") }, "\(plan)")
            #expect(plan.contains { $0.hasPrefix("SEARCH ") }, "\(plan)")
        }
    }

    /// Issue 30 item 1: `begin` appends the intent, `finish` appends the completion (the intent
    /// row is never rewritten), a completion without an intent fails alone, and a duplicate
    /// id fails alone, its neighbours in the same batch committed.
    @Test func intentsAndCompletionsAreAppendedAndFailAlone() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await store.begin(sampleEntry("APPEND"))
            let database = try SQLiteDatabase(path: path)
            let intentBefore = try database.rows("SELECT * FROM request_log WHERE request_id = 'APPEND'")
            #expect(try database.rows("SELECT count(*) FROM request_outcomes") == [[.integer(0)]])
            // Queued together, so they usually share a batch.
            let finished = Task { try await store.finish("APPEND", sampleCompletion()) }
            let unknown = Task { try await store.finish("NEVER-BEGUN", sampleCompletion()) }
            let duplicate = Task { try await store.record(sampleEntry("APPEND"), sampleCompletion()) }
            let neighbour = Task { try await store.record(sampleEntry("NEIGHBOUR"), sampleCompletion()) }
            try await finished.value
            let refusal = await #expect(throws: AuditError.self) { try await unknown.value }
            if case .unknownRequest(let id)? = refusal { #expect(id == "NEVER-BEGUN") } else { Issue.record("not unknownRequest: \(String(describing: refusal))") }
            await #expect(throws: AuditError.self) { try await duplicate.value }
            try await neighbour.value
            #expect(try database.rows("SELECT * FROM request_log WHERE request_id = 'APPEND'") == intentBefore)
            #expect(try database.rows("SELECT request_id, outcome FROM request_outcomes ORDER BY request_id")
                    == [[.text("APPEND"), .text("forwarded")], [.text("NEIGHBOUR"), .text("forwarded")]])
            #expect(try store.reader.show(requestId: "APPEND")?.upstreamStatus == 201)
            await store.close()
        }
    }

    /// Issue 30 item 1: an intent whose process died before its completion is `unknown` at the
    /// next start, and what was to be sent stays readable; recovery reads only the log after the
    /// writers' mark (which an intent still open holds back), by rowid, not the whole log.
    @Test func anIntentACrashLeftWithoutCompletionIsUnknownAndItsTranslationReadable() async throws {
        try await withTemporaryAudit { path in
            let crashed = path + ".crashed"
            var configuration = AuditStoreConfiguration()
            configuration.instanceName = "crashing"
            // No checkpoint may run while the file is copied below.
            configuration.walAutocheckpointPages = 0
            let store = try AuditStore(path: path, configuration: configuration)
            try await store.begin(sampleEntry("EARLY", receivedAt: 1_700_000_000_000))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<(AuditStatements.markEvery + 100) {
                    group.addTask { try await store.record(sampleEntry("SETTLED-\(index)", receivedAt: 1_700_000_001_000, findings: 0), sampleCompletion()) }
                }
                try await group.waitForAll()
            }
            try await store.begin(sampleEntry("LATE", receivedAt: 1_700_000_002_000))
            #expect(try RollupRecoveryTests.counts(store.reader).rollups == ["forwarded=\(AuditStatements.markEvery + 100)", "pending=2"])
            // The process "dies" here: its file and WAL as they are on disk, with no close.
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: crashed + suffix)
            }
            let image = try SQLiteDatabase(path: crashed)
            let early = try #require(try image.rows("SELECT id FROM request_log WHERE request_id = 'EARLY'").first?.first?.integerValue)
            // The mark was written after 1,000 intents and is held just before the one still open.
            #expect(try image.rows("SELECT instance_name, settled_through FROM audit_marks WHERE instance_name = 'crashing'")
                    == [[.text("crashing"), .integer(early - 1)]])
            let plan = try image.rows("EXPLAIN QUERY PLAN " + AuditRecovery.settleOpenIntentsSQL, [.integer(0), .text(""), .integer(0)])
                .compactMap { $0.last?.textValue }
            #expect(plan.contains { $0.contains("SEARCH l USING INTEGER PRIMARY KEY (rowid>?)") }, "\(plan)")
            // The rollups count exactly those intents `unknown`, read the same way (no scan for `pending`).
            let rollupPlan = try image.rows("EXPLAIN QUERY PLAN " + AuditRecovery.countOpenIntentsUnknownSQL, [.integer(0)]).compactMap { $0.last?.textValue }
            #expect(rollupPlan.contains { $0.contains("SEARCH l USING INTEGER PRIMARY KEY (rowid>?)") }, "\(rollupPlan)")
            #expect(!rollupPlan.contains { $0.hasPrefix("SCAN l") }, "\(rollupPlan)")

            let reopened = try AuditStore(path: crashed, configuration: configuration)
            #expect(reopened.recoveredPendingCount == 2)
            for id in ["EARLY", "LATE"] {
                let row = try #require(try reopened.reader.show(requestId: id))
                #expect(row.outcome == "unknown")
                #expect(row.entry.translated == #"[{"method":"POST"}]"#)
                #expect(row.errorMessage?.hasPrefix("the process stopped") == true)
            }
            #expect(try reopened.reader.show(requestId: "SETTLED-0")?.outcome == "forwarded")
            let (rollups, rows) = try RollupRecoveryTests.counts(reopened.reader)
            #expect(rollups == ["forwarded=\(AuditStatements.markEvery + 100)", "unknown=2"])
            #expect(rollups == rows)
            await reopened.close()
            // A clean close leaves the mark at the last row: the next start reads nothing.
            let closed = try SQLiteDatabase(path: crashed)
            #expect(try closed.rows("SELECT settled_through = (SELECT max(id) FROM request_log) FROM audit_marks") == [[.integer(1)]])
            await store.close()
        }
    }
}
