import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The PostgreSQL writer sends a batch's rows of one kind in one statement (`unnest`ed arrays
/// or a multi-row `VALUES`), on the test cluster: a batch of many operations costs a few
/// statements whatever its size, and a row that fails still fails alone.
///
/// Each test holds a lock on `requests` so that the writer's first batch waits while many
/// more operations queue behind it; the next batch then holds all of them.
@Suite(.serialized) struct AuditMultiRowTests {
    static let forms: [AuditMultiRowForm] = [.unnest, .values]

    @Test(arguments: forms) func aBatchOfManyRowsAndCompletionsIsAFewStatements(form: AuditMultiRowForm) async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        var configuration = AuditStoreConfiguration()
        configuration.postgresMultiRow = form
        // Each batch writes its own rollup counters, as counted below (not carried on to a
        // transaction of their own while the first batch's commit is out: `RollupCarryTests`).
        configuration.postgresRollupInterval = nil
        let store = try AuditStore(path: uri, configuration: configuration)
        let ids = (0..<60).map { "M\($0)" }

        let begun = try await Self.whileWriterWaits(uri, store, first: { try await store.begin(sampleEntry("FIRST")) },
                                                    then: ids.map { id in { try await store.begin(sampleEntry(id)) } })
        #expect(begun.allSatisfy { $0 == nil })
        let afterBegins = store.statistics
        #expect(afterBegins.transactions == 2)
        // Each batch: BEGIN, the rows' INSERT (their 180 findings inline, PostgreSQL migration
        // 14: no findings statement), the two rollups' upserts per level (minutes, hours) and
        // the busiest minute's table's (`rollup_minute_sends`), COMMIT. One statement per row
        // would be 61 for the second. Besides: each transaction's settings after its BEGIN, and
        // the writer's recovery mark.
        #expect(afterBegins.statementsSent <= 2 * 9 + 1, "\(afterBegins.statementsSent) statements for 61 rows")

        let finished = try await Self.whileWriterWaits(uri, store, first: { try await store.finish("FIRST", sampleCompletion()) },
                                                       then: (ids + ["NOPE"]).map { id in { try await store.finish(id, sampleCompletion()) } })
        // The completion of a row that does not exist fails alone, the others commit.
        #expect(finished.dropLast().allSatisfy { $0 == nil })
        if case .unknownRequest("NOPE")? = finished.last as? AuditError {} else { Issue.record("NOPE: \(String(describing: finished.last))") }
        let afterFinishes = store.statistics
        #expect(afterFinishes.transactions == 4)
        // BEGIN, settings, one INSERT … SELECT for all completions, the requests rollup's upserts
        // (minutes, busiest-minute table, hours), COMMIT; twice (and the mark), the second with a
        // look-up of NOPE (the writer holds no intent for it).
        #expect(afterFinishes.statementsSent - afterBegins.statementsSent <= 2 * 7 + 2,
                "\(afterFinishes.statementsSent - afterBegins.statementsSent) statements for 62 completions")
        #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded' AND upstream_status = 201") == [[.integer(61)]])
        #expect(try store.reader.query("SELECT count(*) FROM findings") == [[.integer(183)]])
        await store.close()
    }

    @Test(arguments: forms) func aRowThatFailsInAMultiRowBatchFailsAloneAndTheOthersCommit(form: AuditMultiRowForm) async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        var configuration = AuditStoreConfiguration()
        configuration.postgresMultiRow = form
        let store = try AuditStore(path: uri, configuration: configuration)
        try await store.begin(sampleEntry("DUP"))
        let ids = (0..<40).map { $0 == 20 ? "DUP" : "B\($0)" }

        let results = try await Self.whileWriterWaits(uri, store, first: { try await store.begin(sampleEntry("FIRST")) },
                                                      then: ids.map { id in { try await store.begin(sampleEntry(id)) } })
        // The batch's one INSERT was refused; written again row by row, only the duplicate fails.
        for (id, error) in zip(ids, results) where id != "DUP" { #expect(error == nil, "\(id): \(String(describing: error))") }
        if case .postgres(let error)? = results[20] as? AuditError {
            #expect(error.sqlState == "23505")
        } else {
            Issue.record("the duplicate: \(String(describing: results[20]))")
        }
        #expect(try store.reader.query("SELECT count(*) FROM requests") == [[.integer(41)]])
        #expect(try store.reader.query("SELECT count(*) FROM findings") == [[.integer(123)]])
        #expect(store.statistics.operations == 41)
        await store.close()
    }

    /// Shadow comparisons (named statements) used to send a batch statement by statement;
    /// now they follow the batch's multi-row completions in its pipeline.
    @Test func shadowComparisonsRideInTheBatchBesideItsMultiRowCompletions() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        var configuration = AuditStoreConfiguration()
        configuration.postgresMultiRow = .unnest
        // Each batch writes its own rollup counters, as counted below (`RollupCarryTests` has
        // the batches that carry them while an earlier commit is out).
        configuration.postgresRollupInterval = nil
        let store = try AuditStore(path: uri, configuration: configuration)
        let ids = (0..<20).map { "S\($0)" }
        for id in ids + ["FIRST"] { try await store.begin(sampleEntry(id)) }
        let before = store.statistics

        let results = try await Self.whileWriterWaits(uri, store, first: { try await store.finish("FIRST", sampleCompletion()) }, then: ids.flatMap { id in
            [{ try await store.finish(id, sampleCompletion()) }, {
                try await store.record(ShadowComparison(requestId: id, comparedAt: 1_700_000_000_130, dialect: .onesignal, route: .start, sourceApp: "app-1",
                                                        primary: .init(provider: "legacy:onesignal", status: 200, body: "{}", latencyMs: 20, error: nil),
                                                        shadow: .init(provider: "openpush", status: 201, body: "{}", latencyMs: 14.5, error: nil)))
            }] as [@Sendable () async throws -> Void]
        })
        #expect(results.allSatisfy { $0 == nil })
        let after = store.statistics
        #expect(after.transactions - before.transactions == 2)
        // FIRST: BEGIN, its completion, rollup upserts (minutes, busiest-minute table, hours),
        // COMMIT; then BEGIN, one INSERT for 20 completions, 20 comparisons, the rollup upserts,
        // COMMIT; each transaction's settings after its BEGIN, and the mark.
        #expect(after.statementsSent - before.statementsSent <= 6 + 26 + 3, "\(after.statementsSent - before.statementsSent) statements")
        #expect(try store.reader.query("SELECT count(*) FROM shadow_comparisons") == [[.integer(20)]])
        #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded'") == [[.integer(21)]])
        await store.close()
    }

    /// The completions of intents the writer noted itself (their received time known) go in a
    /// plain `INSERT … SELECT`: no speculative insertion per row (`ON CONFLICT … DO UPDATE`),
    /// since none of them has a completion this writer wrote. The others (a late completion
    /// after the first, an intent another writer began) still replace the one there.
    @Test(arguments: forms) func completionsOfNotedIntentsAreAPlainInsert(form: AuditMultiRowForm) {
        let values: [SQLiteValue] = AuditStatements.completionColumns.map { _ in .null } + [.text("r")]
        let noted = AuditMultiRow.complete([values + [.integer(1_700_000_000_000)], values + [.integer(1_700_000_000_001)]], form: form, knownTime: true)
        let other = AuditMultiRow.complete([values, values], form: form)
        #expect(!noted.sql.contains("ON CONFLICT"), "\(noted.sql)")
        #expect(noted.sql.contains("RETURNING request_outcomes.request_id"))
        #expect(other.sql.contains(AuditPostgresLogSQL.replaceOutcome), "\(other.sql)")
    }

    /// A completion whose intent already has an outcome (another instance's takeover marked it
    /// `unknown` while this one was still answering) makes the batch's plain multi-row insert
    /// fail; the batch is written again one statement per row, and every completion lands,
    /// the marked ones replacing what the takeover wrote, as before.
    @Test(arguments: forms) func aCompletionOfAnIntentMarkedUnknownMeanwhileStillReplacesIt(form: AuditMultiRowForm) async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        var configuration = AuditStoreConfiguration()
        configuration.postgresMultiRow = form
        let store = try AuditStore(path: uri, configuration: configuration)
        let ids = (0..<20).map { "K\($0)" }
        for id in ids + ["FIRST"] { try await store.begin(sampleEntry(id)) }
        let takeover = try PostgresConnection(uri)
        try takeover.execute("UPDATE requests SET outcome = 'unknown', error_message = 'taken over' WHERE request_id IN ('K3', 'K17')")
        #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'unknown'") == [[.integer(2)]])
        let before = store.statistics.statementsSent

        let results = try await Self.whileWriterWaits(uri, store, first: { try await store.finish("FIRST", sampleCompletion()) },
                                                      then: ids.map { id in { try await store.finish(id, sampleCompletion()) } })
        for (id, error) in zip(ids, results) { #expect(error == nil, "\(id): \(String(describing: error))") }
        #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded' AND upstream_status = 201 AND error_message IS NULL")
                == [[.integer(21)]])
        #expect(try store.reader.query("SELECT count(*) FROM request_outcomes") == [[.integer(21)]])
        // FIRST's batch (about 8 statements), the 20 completions' multi-row batch refused (about
        // 8 more), then the same written again one statement per row (20 completions and the
        // rollups): an upsert would have taken the first try (about 16 in all).
        let sent = store.statistics.statementsSent - before
        #expect(sent >= 36, "\(sent) statements: the multi-row insert was not refused")
        await store.close()
    }

    /// A multi-row statement is used only where it replaces several: a lone caller's batch (one
    /// row with at most one finding, or one completion) goes one prepared statement per row,
    /// which measured 0.43× the server's CPU per request of the one-row `unnest` form at one
    /// connection (docs/benchmarks.md, "Lone batches").
    @Test func onlyBatchesWithTwoRowsOfAKindAreGrouped() {
        let row: [SQLiteValue] = [.text("r")], finding: [SQLiteValue] = [.text("f")]
        let lone: [[AuditOperation.Work]] = [
            [.finish(requestId: "a", values: [])],
            [.insert(row: row, findings: [])],
            [.insert(row: row, findings: [finding]), .finish(requestId: "b", values: [])],
            // Its findings are in its intent (PostgreSQL migration 14): one statement.
            [.insert(row: row, findings: [finding, finding])],
        ]
        let grouped: [[AuditOperation.Work]] = [
            [.finish(requestId: "a", values: []), .finish(requestId: "b", values: [])],
            [.insert(row: row, findings: []), .insert(row: row, findings: [])],
        ]
        for work in lone { #expect(!AuditPipeline.hasRowsToGroup(work), "\(work)") }
        for work in grouped { #expect(AuditPipeline.hasRowsToGroup(work), "\(work)") }
    }

    /// Runs `first` while a lock on `requests` makes the writer's batch wait, then queues all
    /// of `then` behind it and lets the lock go, so `then` is the next batch (up to the
    /// writer's batch size); the error of each of `then` (nil when it committed), in order.
    static func whileWriterWaits(_ uri: String, _ store: AuditStore, first: @escaping @Sendable () async throws -> Void,
                                 then operations: [@Sendable () async throws -> Void]) async throws -> [(any Error)?] {
        let lock = try PostgresConnection(uri)
        try lock.execute("BEGIN")
        try lock.execute("LOCK TABLE requests IN EXCLUSIVE MODE")
        let watcher = try PostgresConnection(uri)
        let held = Task { try await first() }
        let waiting = try await firstValue {
            try watcher.execute("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'").rowCount > 0 ? true : nil
        }
        #expect(waiting == true, "the writer never waited for the lock")
        let results = try await withThrowingTaskGroup(of: (Int, (any Error)?).self) { group in
            for (position, operation) in operations.enumerated() {
                group.addTask {
                    do { try await operation(); return (position, nil) } catch { return (position, error) }
                }
            }
            let queued = await eventually { store.queueDepth == operations.count }
            #expect(queued, "not every operation queued behind the waiting batch")
            try lock.execute("ROLLBACK")
            var results = [(any Error)?](repeating: nil, count: operations.count)
            for try await (position, error) in group { results[position] = error }
            return results
        }
        try await held.value
        return results
    }
}
