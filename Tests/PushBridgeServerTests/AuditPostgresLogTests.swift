import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The PostgreSQL audit as a log (issue 30, item 3; migration 9), on the test cluster: an old
/// audit migrates and reads the same, a batch is one pipeline of inserts, retention drops day
/// partitions whole, and recovery reads the log from this instance's mark on.
@Suite(.serialized) struct AuditPostgresLogTests {
    /// An audit written before migration 9 (the `requests` table, edited in place) migrates:
    /// its rows move into `request_log` and `request_outcomes`, `requests` becomes a view,
    /// and every reader (`audit list`, `audit show`, `report`, `readiness`) gives what it gave.
    @Test func anOldSchemaAuditMigratesAndReadsTheSame() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let admin = try PostgresConnection(uri)
        // Before 9, and so before the rollups (10) too: the report before reads the rows.
        try PostgresMigrator(PostgresSchema.migrations.filter { $0.number < PostgresAuditLogSchema.number }).migrate(admin)
        let base: Int64 = 1_700_000_000_000
        let insert = PostgresConnection.numberingMarks(AuditStatements.insertRequestSQL)
        for index in 0..<12 {
            let entry = sampleEntry("OLD\(index)", receivedAt: base + Int64(index) * 3_600_000, app: index % 2 == 0 ? "rides" : "food")
            // Every third still pending, of another instance (which its own start recovers).
            let completion: AuditCompletion? = index % 3 == 2 ? nil : sampleCompletion(finishedAt: entry.receivedAt + 120)
            try admin.execute(insert, AuditRowEncoding.requestRow(entry, completion, bodyLimit: 65_536, instance: completion == nil ? "elsewhere" : "old")
                .map(PostgresConnection.text))
            let findings = AuditRowEncoding.findingRows(entry, instance: "old")
            try admin.execute(PostgresConnection.numberingMarks(AuditStatements.insertFindingsSQL(count: findings.count)),
                              findings.flatMap { $0 }.map(PostgresConnection.text))
        }
        let before = try AuditReader(path: uri)
        let (report, readiness) = (try before.report(), try before.readiness())
        let list = try before.list(limit: 100)
        let shown = try before.show(requestId: "OLD4")

        var configuration = AuditStoreConfiguration()
        configuration.instanceName = "old"
        let store = try AuditStore(path: uri, configuration: configuration)
        #expect(store.recoveredPendingCount == 0)
        let after = try AuditReader(path: uri)
        #expect(try after.report() == report)
        #expect(try after.readiness() == readiness)
        #expect(try after.list(limit: 100) == list)
        #expect(try after.show(requestId: "OLD4") == shown)
        #expect(try after.show(requestId: "OLD2")?.outcome == "pending")
        #expect(try admin.execute("SELECT relkind FROM pg_class WHERE relname = 'requests'").value(0, 0) == "v")
        #expect(try admin.execute("SELECT count(*) FROM request_log").value(0, 0) == "12")
        #expect(try admin.execute("SELECT count(*) FROM request_outcomes").value(0, 0) == "8")
        // The old rows' day got its own partition: nothing is left in the DEFAULT one.
        #expect(try admin.execute("SELECT count(*) FROM request_log_default").value(0, 0) == "0")
        #expect(try admin.execute("SELECT to_regclass('request_log_20231114') IS NOT NULL").value(0, 0) == "t")
        // New requests are written beside them and read the same way.
        try await store.begin(sampleEntry("NEW"))
        try await store.finish("NEW", sampleCompletion())
        #expect(try after.show(requestId: "NEW")?.outcome == "forwarded")
        await store.close()
    }

    /// `audit copy` of an SQLite audit writes the log's tables and gives each copied day its
    /// partition, so retention can drop it whole; what it copied reads back the same.
    @Test func aCopiedAuditLandsInDayPartitions() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await store.record(sampleEntry("COPIED"), sampleCompletion())
            try await store.begin(sampleEntry("OPEN", receivedAt: 1_700_100_000_000))
            await store.close()
            let counts = try AuditCopy(from: path, to: try PostgresURI(uri)).run()
            #expect(counts.first?.inserted == 2)
            let admin = try PostgresConnection(uri)
            #expect(try admin.execute("SELECT count(*) FROM request_log_default").value(0, 0) == "0")
            #expect(try admin.execute("SELECT count(*) FROM request_log_20231114").value(0, 0) == "1")
            #expect(try admin.execute("SELECT count(*) FROM request_outcomes_20231114").value(0, 0) == "1")
            #expect(try admin.execute("SELECT count(*) FROM request_log_20231116").value(0, 0) == "1")
            let copied = try AuditReader(path: uri), original = try AuditReader(path: path)
            #expect(try copied.show(requestId: "COPIED")?.outcome == "forwarded")
            #expect(try copied.show(requestId: "OPEN")?.outcome == "pending")
            #expect(try copied.list(limit: 10).map(\.requestId) == original.list(limit: 10).map(\.requestId))
        }
    }

    /// A batch of intents, completions and named statements is one pipeline: its intents in
    /// one `INSERT`, their findings in another, its completions in one `INSERT … SELECT`, the
    /// shadow comparisons beside them, a duplicate still fails alone and a completion without
    /// intent still names its request.
    @Test func aBatchIsOnePipelineOfInserts() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        var configuration = AuditStoreConfiguration()
        // Each batch writes its own rollup counters, as counted below: carried on, they would be
        // written by whichever later batch finds the carry older than its interval, which a
        // loaded machine makes this one or not (`RollupCarryTests` covers the carry).
        configuration.postgresRollupInterval = nil
        let store = try AuditStore(path: uri, configuration: configuration)
        let ids = (0..<30).map { "L\($0)" }
        for id in ids + ["FIRST", "DUP"] { try await store.begin(sampleEntry(id)) }
        let before = store.statistics
        let results = try await AuditMultiRowTests.whileWriterWaits(uri, store, first: { try await store.finish("FIRST", sampleCompletion()) }, then: ids.flatMap { id in
            [{ try await store.finish(id, sampleCompletion()) }, { try await store.begin(sampleEntry(id + "b")) }, {
                try await store.record(ShadowComparison(requestId: id, comparedAt: 1_700_000_000_130, dialect: .onesignal, route: .start, sourceApp: "app-1",
                                                        primary: .init(provider: "legacy:onesignal", status: 200, body: "{}", latencyMs: 20, error: nil),
                                                        shadow: .init(provider: "openpush", status: 201, body: "{}", latencyMs: 14.5, error: nil)))
            }] as [@Sendable () async throws -> Void]
        } + [{ try await store.finish("NOPE", sampleCompletion()) }])
        #expect(results.dropLast().allSatisfy { $0 == nil })
        if case .unknownRequest("NOPE")? = results.last as? AuditError {} else { Issue.record("NOPE: \(String(describing: results.last))") }
        let after = store.statistics
        #expect(after.transactions - before.transactions == 2)
        // FIRST: BEGIN, its settings, its completion, the requests rollup's upserts (minutes and
        // hours), the mark at most, COMMIT. Then BEGIN, its settings, one INSERT of 30 intents,
        // one of their 90 findings, one of 31 completions, 30 comparisons, the two rollups'
        // upserts per level, the mark at most, COMMIT, and the look-up of NOPE (the writer holds
        // no intent for it): 42, where one statement per row would be 151.
        #expect(after.statementsSent - before.statementsSent <= 7 + 42, "\(after.statementsSent - before.statementsSent) statements")
        #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded'") == [[.integer(31)]])
        #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'pending'") == [[.integer(31)]])
        #expect(try store.reader.query("SELECT count(*) FROM request_outcomes") == [[.integer(31)]])

        let duplicate = try await AuditMultiRowTests.whileWriterWaits(uri, store, first: { try await store.begin(sampleEntry("FIRST2")) },
                                                                      then: ["C1", "DUP", "C2"].map { id in { try await store.begin(sampleEntry(id)) } })
        #expect(duplicate[0] == nil && duplicate[2] == nil)
        if case .postgres(let error)? = duplicate[1] as? AuditError { #expect(error.sqlState == "23505") } else { Issue.record("DUP: \(String(describing: duplicate[1]))") }
        #expect(try store.reader.query("SELECT count(*) FROM request_log WHERE request_id IN ('C1', 'C2', 'DUP')") == [[.integer(3)]])
        await store.close()
    }

    /// Retention drops a day partition past the window whole, with its requests' findings,
    /// keeps today's, and deletes what the DEFAULT partition holds past the window row by row.
    @Test func retentionDropsAWholeDayPartition() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let store = try AuditStore(path: uri)
        let now = AuditClock.nowMilliseconds()
        let oldDay = now / 86_400_000 - 40
        let admin = try PostgresConnection(uri)
        try AuditPostgresPartitions.make(days: oldDay...oldDay, on: admin)
        for index in 0..<5 {
            try await store.record(sampleEntry("OLD\(index)", receivedAt: oldDay * 86_400_000 + Int64(index) * 1000), sampleCompletion())
            try await store.record(sampleEntry("NOW\(index)", receivedAt: now), sampleCompletion(finishedAt: now + 100))
        }
        try await store.record(sampleEntry("DEFAULT"), sampleCompletion())
        let suffix = try #require(admin.execute("SELECT substr(relname, 13) FROM pg_class WHERE relname LIKE 'request_log_2%' ORDER BY relname LIMIT 1").value(0, 0))
        #expect(AuditPostgresPartitions.day(ofSuffix: suffix) == oldDay)
        #expect(try admin.execute("SELECT count(*) FROM request_log_\(suffix)").value(0, 0) == "5")

        let retention = try AuditRetention(store: store, settings: AuditRetention.Settings(retentionDays: 30), clock: ManualDeliveryClock(startMilliseconds: now))
        #expect(try await retention.pruneOnce() == 6)
        #expect(try admin.execute("SELECT to_regclass('request_log_\(suffix)') IS NULL AND to_regclass('request_outcomes_\(suffix)') IS NULL").value(0, 0) == "t")
        #expect(try store.reader.query("SELECT request_id FROM requests ORDER BY request_id") == (0..<5).map { [.text("NOW\($0)")] })
        #expect(try store.reader.query("SELECT count(*) FROM findings") == [[.integer(15)]])
        await store.close()
    }

    /// Recovery reads the log from this instance's mark: an intent received before the mark
    /// (written, completed) is not read again, an open one after it becomes `unknown`, and one
    /// written with an arrival older than the mark moves the mark back in its own batch.
    @Test func recoveryReadsTheLogFromTheInstancesMark() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        var configuration = AuditStoreConfiguration()
        configuration.instanceName = "a"
        let first = try AuditStore(path: uri, configuration: configuration)
        let admin = try PostgresConnection(uri)
        let markAtStart = try #require(Int64(admin.execute("SELECT complete_before FROM audit_marks WHERE instance_name = 'a'").value(0, 0) ?? ""))
        #expect(markAtStart > AuditClock.nowMilliseconds() - AuditPostgresRecovery.slackMs - 60_000)
        try await first.begin(sampleEntry("OPEN"))
        // Its arrival (2023) is older than the mark: the batch that wrote it moved the mark back.
        #expect(try admin.execute("SELECT complete_before FROM audit_marks WHERE instance_name = 'a'").value(0, 0) == "1700000000000")
        await first.close()
        // A row before the mark left open by hand: recovery never reads that far back.
        try admin.execute("INSERT INTO request_log (request_id, received_at, instance_name) VALUES ('ANCIENT', 1600000000000, 'a')")

        let second = try AuditStore(path: uri, configuration: configuration)
        #expect(second.recoveredPendingCount == 1)
        #expect(try second.reader.show(requestId: "OPEN")?.outcome == "unknown")
        #expect(try second.reader.show(requestId: "ANCIENT")?.outcome == "pending")
        #expect(try admin.execute("SELECT complete_before > 1700000000000 FROM audit_marks WHERE instance_name = 'a'").value(0, 0) == "t")
        await second.close()
    }
}
