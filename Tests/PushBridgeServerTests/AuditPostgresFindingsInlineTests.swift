import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// PostgreSQL migration 14 (``AuditFindingsInlineSchema``, issue 30 item 3 "PostgreSQL gets the
/// same shape"): a request's findings are in its intent's `finding_list`, `findings` a view over
/// it; an old PostgreSQL audit's findings move in and read as before, and `audit copy` merges a
/// file's findings into the lists, counting them as it counted rows.
@Suite(.serialized) struct AuditPostgresFindingsInlineTests {
    /// Issue 30 item 3: the PostgreSQL writer's intent carries its findings, in one statement
    /// row by row and in one multi-row `INSERT` for a batch, and nothing writes a findings table:
    /// `findings` is a view, and reads back every finding with the intent's columns, in order.
    @Test func aPostgresIntentWritesNoFindingsRowsInATable() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        var configuration = AuditStoreConfiguration()
        configuration.instanceName = "host-a"
        let store = try AuditStore(path: uri, configuration: configuration)
        try await store.begin(sampleEntry("PG-THREE"))
        try await store.finish("PG-THREE", sampleCompletion())
        try await store.record(sampleEntry("PG-NONE", findings: 0), sampleCompletion())
        // Concurrent callers share batches: the multi-row path.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask { try await store.record(sampleEntry("PG-MANY-\(index)", findings: 2), sampleCompletion()) }
            }
            try await group.waitForAll()
        }
        await store.close()

        let admin = try PostgresConnection(uri)
        #expect(try admin.execute("SELECT relkind FROM pg_class WHERE relname = 'findings'").value(0, 0) == "v")
        #expect(try admin.execute("SELECT count(*) FROM pg_class WHERE relname LIKE 'findings%' AND relkind IN ('r', 'p', 'i', 'I')").value(0, 0) == "0")
        #expect(try admin.execute("SELECT \(AuditFindingsInlineSchema.column) IS NULL FROM request_log WHERE request_id = 'PG-NONE'").value(0, 0) == "t")
        #expect(try admin.execute("SELECT count(*) FROM request_log WHERE \(AuditFindingsInlineSchema.column) IS NOT NULL").value(0, 0) == "41")
        #expect(try admin.execute("SELECT count(*) FROM findings").value(0, 0) == "83")
        let rows = try admin.execute("SELECT * FROM findings WHERE request_id = 'PG-THREE' ORDER BY ordinal").rows
        #expect(rows == (0..<3).map { ordinal -> [String?] in
            let kind: FindingKind = ordinal == 0 ? .dropped : .renamed
            return ["PG-THREE", "\(ordinal)", "onesignal", "start", "app-1", "1700000000000", "field\(ordinal)", kind.rawValue,
                    kind.defaultSeverity.rawValue, "message \(ordinal)", "host-a"]
        })
        let reader = try AuditReader(path: uri)
        #expect(try reader.show(requestId: "PG-THREE")?.entry.findings.map(\.field) == ["field0", "field1", "field2"])
        #expect(try reader.show(requestId: "PG-MANY-7")?.entry.findings.map(\.field) == ["field0", "field1"])
        // A tool's insert through the view appends to its intent's list.
        try admin.execute(PostgresConnection.numberingMarks(AuditStatements.insertFindingsSQL(count: 1)),
                          AuditRowEncoding.findingRows(sampleEntry("PG-NONE", findings: 1), instance: "tool")[0].map(PostgresConnection.text))
        #expect(try admin.execute("SELECT ordinal, field, message, instance_name FROM findings WHERE request_id = 'PG-NONE'").rows
                == [["0", "field0", "message 0", "host-a"]])
        // The log's partitions, those there and a day made after the migration, are not
        // compressed by the toaster below PostgreSQL's largest target (an intent is about 2 KB).
        #expect(try admin.execute("SELECT pushbridge_audit_day(19000)").value(0, 0) == "t")
        let target = "toast_tuple_target=\(AuditFindingsInlineSchema.toastTupleTarget)"
        for table in ["request_log_default", "request_outcomes_default", "request_log_20220108", "request_outcomes_20220108"] {
            #expect(try admin.execute("SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = $1", [table]).value(0, 0) == target, "\(table)")
        }
    }

    /// Issue 30 item 4 on PostgreSQL: an audit written before migration 14 (one `findings` row
    /// per finding) migrates: its findings move into their intents, in order, with quotes,
    /// backslashes and non-ASCII intact, the table is dropped, and `audit show`, the report and
    /// readiness read exactly what they read before.
    @Test func anOldPostgresAuditsFindingsReadTheSameAfterMigration14() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let admin = try PostgresConnection(uri)
        try PostgresMigrator(PostgresSchema.migrations.filter { $0.number < AuditFindingsInlineSchema.postgresNumber }).migrate(admin)
        #expect(try admin.execute("SELECT relkind FROM pg_class WHERE relname = 'findings'").value(0, 0) == "r")
        var quoted = sampleEntry("OLD-QUOTED", receivedAt: 1_700_000_001_000, findings: 0, app: "app-2")
        quoted.findings = [Finding(field: "headings.en", kind: .escaped, severity: .warning, message: AuditFindingsInlineTests.quotedMessage),
                           Finding(field: "notifications[0].title", kind: .rejected, message: "second")]
        let entries = [sampleEntry("OLD-THREE"), quoted, sampleEntry("OLD-NONE", receivedAt: 1_700_000_002_000, findings: 0),
                       sampleEntry("OLD-PENDING", receivedAt: 1_700_000_003_000, findings: 2)]
        for entry in entries {
            // As the writer before 14 wrote them: the row through the `requests` view, then its findings.
            let completion = entry.requestId == "OLD-PENDING" ? nil : sampleCompletion(finishedAt: entry.receivedAt + 120)
            try admin.execute(PostgresConnection.numberingMarks(AuditStatements.insertRequestSQL),
                              AuditRowEncoding.requestRow(entry, completion, bodyLimit: 65_536, instance: "old").map(PostgresConnection.text))
            let findings = AuditRowEncoding.findingRows(entry, instance: "old")
            guard !findings.isEmpty else { continue }
            try admin.execute(PostgresConnection.numberingMarks(AuditStatements.insertFindingsSQL(count: findings.count)),
                              findings.flatMap { $0 }.map(PostgresConnection.text))
        }
        let before = try AuditReader(path: uri)
        let (report, readiness) = (try before.report(), try before.readiness())
        let shown = try entries.map { try before.show(requestId: $0.requestId) }
        let table = try admin.execute("SELECT * FROM findings ORDER BY request_id, ordinal").rows
        #expect(table.count == 7)

        #expect(try PostgresSchema.migrator.migrate(admin).contains(AuditFindingsInlineSchema.postgresNumber))
        #expect(try admin.execute("SELECT relkind FROM pg_class WHERE relname = 'findings'").value(0, 0) == "v")
        #expect(try admin.execute("SELECT \(AuditFindingsInlineSchema.column) IS NULL FROM request_log WHERE request_id = 'OLD-NONE'").value(0, 0) == "t")
        #expect(try admin.execute("SELECT * FROM findings ORDER BY request_id, ordinal").rows == table)
        let after = try AuditReader(path: uri)
        #expect(try after.report() == report)
        #expect(try after.readiness() == readiness)
        #expect(try entries.map { try after.show(requestId: $0.requestId) } == shown)
        #expect(try after.show(requestId: "OLD-QUOTED")?.entry.findings.map(\.message) == [AuditFindingsInlineTests.quotedMessage, "second"])
    }

    /// `audit copy` into the inline shape: a file's findings land in their intents' lists; a
    /// second copy writes nothing and counts them present; a finding blanked in PostgreSQL is
    /// put back and one changed there is set back to the file's, each counted.
    @Test func auditCopyMergesFindingsIntoTheIntentsList() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await store.record(sampleEntry("COPY-THREE"), sampleCompletion())
            try await store.record(sampleEntry("COPY-NONE", receivedAt: 1_700_000_001_000, findings: 0), sampleCompletion())
            try await store.record(sampleEntry("COPY-TWO", receivedAt: 1_700_000_002_000, findings: 2), sampleCompletion())
            await store.close()
            func findings(_ counts: [AuditCopyCounts]) -> AuditCopyCounts? { counts.first { $0.table == "findings" } }

            let first = try AuditCopy(from: path, to: try PostgresURI(uri)).run()
            #expect(findings(first).map { [$0.read, $0.inserted, $0.updated] } == [5, 5, 0])
            let admin = try PostgresConnection(uri)
            #expect(try admin.execute("SELECT relkind FROM pg_class WHERE relname = 'findings'").value(0, 0) == "v")
            #expect(try admin.execute("SELECT count(*) FROM request_log WHERE \(AuditFindingsInlineSchema.column) IS NOT NULL").value(0, 0) == "2")
            let copied = try admin.execute("SELECT request_id, ordinal, field, kind, message FROM findings ORDER BY request_id, ordinal").rows
            #expect(copied.map { $0[0] ?? "" } == ["COPY-THREE", "COPY-THREE", "COPY-THREE", "COPY-TWO", "COPY-TWO"])
            #expect(copied.map { $0[2] ?? "" } == ["field0", "field1", "field2", "field0", "field1"])

            let again = try AuditCopy(from: path, to: try PostgresURI(uri)).run()
            #expect(findings(again).map { [$0.read, $0.inserted, $0.updated, $0.unchanged] } == [5, 0, 0, 5])
            #expect(try admin.execute("SELECT request_id, ordinal, field, kind, message FROM findings ORDER BY request_id, ordinal").rows == copied)

            try admin.execute("DELETE FROM findings WHERE request_id = 'COPY-THREE' AND ordinal = 1")
            let list = AuditFindingsInlineSchema.column
            try admin.execute("UPDATE request_log SET \(list) = jsonb_set(\(list)::jsonb, '{0,3}', '\"edited\"')::text WHERE request_id = 'COPY-TWO'")
            #expect(try admin.execute("SELECT count(*) FROM findings").value(0, 0) == "4")
            let third = try AuditCopy(from: path, to: try PostgresURI(uri)).run()
            #expect(findings(third).map { [$0.read, $0.inserted, $0.updated, $0.unchanged] } == [5, 1, 1, 3])
            #expect(try admin.execute("SELECT request_id, ordinal, field, kind, message FROM findings ORDER BY request_id, ordinal").rows == copied)
        }
    }
}
