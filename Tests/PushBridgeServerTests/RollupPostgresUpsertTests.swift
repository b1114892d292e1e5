import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// On PostgreSQL a batch's rollup counters go as ONE statement (``AuditRollupPostgresUpsert``:
/// the five tables' upserts as `unnest`ed binary arrays in data-modifying CTEs) instead of one
/// upsert per table and chunk; the counters are exactly those the five statements wrote.
@Suite(.serialized) struct RollupPostgresUpsertTests {
    static let tables = ["rollup_requests", "rollup_findings", "rollup_minute_sends", "rollup_requests_hourly", "rollup_findings_hourly"]

    /// The oracle: the same batches through the fold's five statements (one database) and
    /// through the one statement (another), every batch's counters added to what the earlier
    /// ones wrote (overlapping ranges of the synthetic mix: the same keys again, so the
    /// `ON CONFLICT` updates run), minutes crossing hours, batches over 200 counter rows (the
    /// fold's chunks), batches without findings (empty arrays): the rows of the five tables
    /// are the same, value for value.
    @Test func randomBatchesWriteExactlyWhatTheFiveStatementsWrote() throws {
        let cluster = try PostgresTestCluster.start()
        let old = try PostgresConnection(cluster.makeDatabase()), new = try PostgresConnection(cluster.makeDatabase())
        for connection in [old, new] { try PostgresSchema.migrator.migrate(connection) }
        let apps = ["zeta", "app-10", "app-9", "", "Åpp", "b\"q'\\", "ápp"]
        var fold = AuditRollupFold()
        var statements = 0
        for batch in 0..<36 {
            // A pseudo-random range of one of two spacings (a request every 130 s, or ~8 a minute).
            let spacing = batch % 3 == 0 ? 2_000_000 : 20_000
            let start = (batch * 7_919 + 13) % 600, size = batch % 9 == 4 ? 420 : 1 + (batch * 104_729) % 160
            var steps = RollupFoldTests.batch(start..<start + size, of: spacing) { apps[($0 * 5 + batch) % apps.count] }
            if batch % 5 == 2 {
                steps = steps.map { step in
                    if case .insert(let row, _, let counts) = step { .insert(row: row, findings: [], counts: counts) } else { step }
                }
            }
            fold.reset()
            RollupFoldTests.fold(steps, into: &fold)
            var operations: [(index: Int, work: AuditOperation.Work)] = []
            fold.forEachStatement { operations.append((index: operations.count, work: .rollup($0))) }
            statements += operations.count

            let oldPlan = AuditPipeline.rowByRow(operations)
            let (rest, upsert) = AuditRollupPostgresUpsert.gather(operations)
            #expect(rest.isEmpty, "batch \(batch): every upsert gathered")
            let one = try #require(upsert).statement
            #expect(one.sql == AuditRollupPostgresUpsert.sql)
            let binary = one.parameters.allSatisfy { $0.isBinary }
            #expect(binary, "batch \(batch): every column a binary array")
            for (connection, plan) in [(old, oldPlan), (new, [one])] {
                let (applied, rowByRow) = try AuditPipeline.apply(plan, on: connection, prepared: batch % 2 == 0, begin: true)
                #expect(applied.committed && applied.failures.isEmpty && !rowByRow, "batch \(batch): \(applied.failures)")
            }
            fold.recycle(&operations)
        }
        // The five statements' side had more than one a batch; every table was written to.
        #expect(statements > 36 * 5)
        for table in Self.tables {
            let rows = try Self.rows(table, old)
            #expect(rows.count > 20, "\(table): \(rows.count) rows")
            #expect(try Self.rows(table, new) == rows, "\(table)")
        }
    }

    /// Each column's PostgreSQL type is the migrated table's, and every column of the table is
    /// written (a column added by a later migration without its type here would fail).
    @Test func theStatementsColumnsAreTheTablesWithTheirTypes() throws {
        let connection = try PostgresConnection(PostgresTestCluster.start().makeDatabase())
        try PostgresSchema.migrator.migrate(connection)
        #expect(AuditRollupPostgresUpsert.tables.map(\.columns.table) == Self.tables)
        for table in AuditRollupPostgresUpsert.tables {
            let declared = try connection.select("SELECT column_name, upper(data_type) FROM information_schema.columns WHERE table_name = ? ORDER BY column_name",
                                                 [.text(table.columns.table)])
            let ours = zip(table.columns.names, table.columns.types).sorted { $0.0 < $1.0 }.map { [SQLiteValue.text($0.0), .text($0.1)] }
            #expect(ours == declared, "\(table.columns.table)")
        }
    }

    /// Through the store: a batch of 40 intents (findings, the busiest minute's sends, minutes
    /// and hours) sends its rollups as one statement, and the counters are what a recount
    /// from the log makes (``AuditRollupRows/fill(_:instances:sinceMinute:)``).
    @Test func aBatchsRollupsAreOneStatement() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        var configuration = AuditStoreConfiguration()
        configuration.postgresMultiRow = .unnest
        // Each batch writes its own counters (not carried while the first batch's commit is out).
        configuration.postgresRollupInterval = nil
        let store = try AuditStore(path: uri, configuration: configuration)
        let ids = (0..<40).map { "R\($0)" }
        let begun = try await AuditMultiRowTests.whileWriterWaits(uri, store, first: { try await store.begin(sampleEntry("FIRST")) }, then: ids.enumerated().map { i, id in
            { try await store.begin(sampleEntry(id, receivedAt: 1_700_000_000_000 + Int64(i) * 157_000, findings: i % 4, app: "app-\(i % 3)")) }
        })
        #expect(begun.allSatisfy { $0 == nil })
        let statistics = store.statistics
        #expect(statistics.transactions == 2)
        // Each batch: BEGIN, the writer's settings, its intents, the rollups' ONE statement,
        // COMMIT; and once the writer's recovery mark. The five upserts made it 2 × 9 + 1.
        #expect(statistics.statementsSent <= 2 * 5 + 1, "\(statistics.statementsSent) statements for 41 rows")
        await store.close()

        let connection = try PostgresConnection(uri)
        let written = try Self.tables.map { try Self.rows($0, connection) }
        #expect(written[1].count > 1 && written[2].count > 1 && written[3].count > 1, "findings, sends and hours written")
        try connection.transaction { try AuditRollupRows.fill(connection, instances: [configuration.instanceName]) }
        #expect(try Self.tables.map { try Self.rows($0, connection) } == written)
    }

    /// Every row of `table`, in its key's order (every column, so every row's order is total).
    static func rows(_ table: String, _ connection: PostgresConnection) throws -> [[SQLiteValue]] {
        let count = try connection.select("SELECT count(*) FROM information_schema.columns WHERE table_name = ?", [.text(table)]).first?.first?.integerValue ?? 0
        return try connection.select("SELECT * FROM \(table) ORDER BY " + (1...Int(count)).map(String.init).joined(separator: ", "), [])
    }
}
