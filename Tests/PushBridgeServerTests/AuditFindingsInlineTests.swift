import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// SQLite migration 18 (``AuditFindingsInlineSchema``, issue 30 item 1: "the full entry
/// (bodies, translation, findings inline) as the intent"): a request's findings are one
/// column of its intent, `findings` a view over it, and an old audit's findings move in and
/// read as before.
@Suite(.serialized) struct AuditFindingsInlineTests {
    /// A finding message with what JSON must escape: quotes, a backslash, a tab, and non-ASCII.
    static let quotedMessage = "a \"quoted\" \\ message, é, tab\tend"

    /// A file at the migrations before 18, written the way the writer before it wrote one: an
    /// intent in `request_log` (through the `requests` view) and one `findings` row per finding.
    static func oldAudit(_ path: String) throws {
        let database = try AuditLogTests.migrated(path, before: AuditFindingsInlineSchema.sqliteNumber)
        #expect(try database.rows("SELECT type FROM sqlite_schema WHERE name = 'findings'") == [[.text("table")]])
        func insert(_ entry: AuditEntry, _ completion: AuditCompletion?) throws {
            try AuditStatements.apply(.insert(row: AuditRowEncoding.requestRow(entry, completion, bodyLimit: 65_536, instance: "old-host"),
                                              findings: AuditRowEncoding.findingRows(entry, instance: "old-host")), on: database)
        }
        try insert(sampleEntry("OLD-THREE", receivedAt: 1_700_000_000_000), sampleCompletion(finishedAt: 1_700_000_000_120))
        var quoted = sampleEntry("OLD-QUOTED", receivedAt: 1_700_000_001_000, findings: 0, app: "app-2")
        quoted.findings = [Finding(field: "headings.en", kind: .escaped, severity: .warning, message: Self.quotedMessage),
                           Finding(field: "notifications[0].title", kind: .rejected, message: "second")]
        try insert(quoted, sampleCompletion(finishedAt: 1_700_000_001_100))
        try insert(sampleEntry("OLD-NONE", receivedAt: 1_700_000_002_000, findings: 0), sampleCompletion(finishedAt: 1_700_000_002_100))
        try insert(sampleEntry("OLD-PENDING", receivedAt: 1_700_000_003_000, findings: 2), nil)
    }

    /// What the CLI prints of each request's findings: `audit show` (text and JSON) of every row, and the report.
    static func cliOutputs(_ path: String) async throws -> [String] {
        var commands = [["report", "--db", path, "--format", "json"]]
        for id in ["OLD-THREE", "OLD-QUOTED", "OLD-NONE", "OLD-PENDING"] {
            commands += [["audit", "show", id, "--db", path], ["audit", "show", id, "--db", path, "--format", "json"]]
        }
        return try await AuditLogTests.outputs(of: commands)
    }

    /// Issue 30 item 4 for the findings: an old audit's `findings` rows move into their intents
    /// (in ordinal order, text with quotes, backslashes and non-ASCII intact), the table is
    /// dropped, and `audit show` and `report` print exactly what they printed before; a writer
    /// then opens the file and reads them the same.
    @Test func anOldAuditsFindingsAreReadableAfterTheMigration() async throws {
        try await withTemporaryAudit { path in
            try Self.oldAudit(path)
            let before = try await Self.cliOutputs(path)
            #expect(before[1].contains("field2") && before[3].contains("quoted"), "\(before[1])")

            let database = try SQLiteDatabase(path: path)
            #expect(try AuditSchema.migrator.migrate(database) == [AuditFindingsInlineSchema.sqliteNumber, AuditRollupShadowSchema.sqliteNumber, AuditRollupMinuteSendsSchema.sqliteNumber,
                                                           AuditRollupMarkSchema.sqliteNumber, AuditOutcomeKeySchema.sqliteNumber, AuditLogMinutesSchema.sqliteNumber])
            #expect(try database.rows("SELECT type FROM sqlite_schema WHERE name = 'findings'") == [[.text("view")]])
            let lists = try database.rows("SELECT request_id, \(AuditFindingsInlineSchema.column) FROM request_log ORDER BY id")
            #expect(lists.count == 4)
            #expect(lists[0][1].textValue?.hasPrefix(#"[["field0","dropped","#) == true, "\(lists[0])")
            #expect(lists[2][1] == .null)
            #expect(try database.rows("SELECT count(*) FROM findings") == [[.integer(7)]])
            #expect(try database.rows("PRAGMA integrity_check") == [[.text("ok")]])

            let after = try await Self.cliOutputs(path)
            #expect(after.count == before.count)
            for (old, new) in zip(before, after) { #expect(old == new) }

            let store = try AuditStore(path: path)
            let quoted = try #require(try store.reader.show(requestId: "OLD-QUOTED"))
            #expect(quoted.entry.findings.map(\.message) == [Self.quotedMessage, "second"])
            #expect(quoted.entry.findings.map(\.severity) == [.warning, FindingKind.rejected.defaultSeverity])
            await store.close()
        }
    }

    /// Issue 30 item 1: a new intent's findings are in its row, one column, and nothing else:
    /// `findings` is no table (no b-tree of its own to write), and the view gives every reader
    /// the rows the table held, in order, with the intent's dialect, route, app, time and instance.
    @Test func aNewIntentWritesNoFindingsRows() async throws {
        try await withTemporaryAudit { path in
            var configuration = AuditStoreConfiguration()
            configuration.instanceName = "host-a"
            let store = try AuditStore(path: path, configuration: configuration)
            try await store.begin(sampleEntry("NEW-THREE"))
            try await store.finish("NEW-THREE", sampleCompletion())
            try await store.record(sampleEntry("NEW-NONE", findings: 0), sampleCompletion())
            let reader = store.reader
            #expect(try reader.query("SELECT type FROM sqlite_schema WHERE name = 'findings'") == [[.text("view")]])
            #expect(try reader.query("SELECT count(*) FROM sqlite_schema WHERE tbl_name = 'findings' AND type IN ('table', 'index')") == [[.integer(0)]])
            #expect(try reader.query("SELECT \(AuditFindingsInlineSchema.column) FROM request_log WHERE request_id = 'NEW-NONE'") == [[.null]])
            let rows = try reader.query("SELECT * FROM findings WHERE request_id = 'NEW-THREE' ORDER BY ordinal")
            #expect(rows == (0..<3).map { ordinal -> [SQLiteValue] in
                let kind: FindingKind = ordinal == 0 ? .dropped : .renamed
                return [.text("NEW-THREE"), .integer(Int64(ordinal)), .text("onesignal"), .text("start"), .text("app-1"), .integer(1_700_000_000_000),
                        .text("field\(ordinal)"), .text(kind.rawValue), .text(kind.defaultSeverity.rawValue), .text("message \(ordinal)"), .text("host-a")]
            })
            let record = try #require(try reader.show(requestId: "NEW-THREE"))
            #expect(record.entry.findings.map(\.field) == ["field0", "field1", "field2"])
            await store.close()
        }
    }

    /// A tool's `INSERT INTO findings` (a script, `report-bench`) appends to the intent's list;
    /// a `DELETE` removes that finding alone; pruning a request takes its findings with it.
    @Test func aToolsInsertAndDeleteAndPruningChangeTheIntentsList() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await store.record(sampleEntry("TOOL", findings: 2), sampleCompletion())
            await store.close()
            let database = try SQLiteDatabase(path: path)
            try database.change(AuditStatements.insertFindingsSQL(count: 1),
                                AuditRowEncoding.findingRows(sampleEntry("TOOL", findings: 3), instance: "x")[2])
            #expect(try database.rows("SELECT ordinal, field FROM findings WHERE request_id = 'TOOL' ORDER BY ordinal")
                    == [[.integer(0), .text("field0")], [.integer(1), .text("field1")], [.integer(2), .text("field2")]])
            try database.change("DELETE FROM findings WHERE request_id = 'TOOL' AND ordinal = 1", [])
            #expect(try database.rows("SELECT ordinal, field FROM findings WHERE request_id = 'TOOL' ORDER BY ordinal")
                    == [[.integer(0), .text("field0")], [.integer(2), .text("field2")]])
            let pruned = try await CLIRunner.runAsync(["audit", "prune", "--db", path, "--older-than-days", "1"])
            #expect(pruned.status == 0, "\(pruned.stderr)")
            #expect(try database.rows("SELECT count(*) FROM request_log") == [[.integer(0)]])
            #expect(try database.rows("SELECT count(*) FROM findings") == [[.integer(0)]])
        }
    }
}
