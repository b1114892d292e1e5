import Foundation
import Testing
@testable import PushBridgeServer

/// The shared pacer's batch locks the windows it reads without writing them (issue 30,
/// `docs/benchmarks.md` "PostgreSQL CPU per request, where it goes"): a row lock instead of
/// the upsert's new version of every window, so a batch writes a window once (its store), or
/// not at all when it grants nothing; an app's first batch still creates its row.
@Suite(.serialized) struct SharedPacerRowLockTests {
    /// The versions of `app`'s window on its page written by the transaction that wrote the
    /// current one (`pageinspect`: the raw page, pruned or not).
    static func versionsByLastWriter(_ app: String, _ admin: PostgresConnection) throws -> Int {
        let sql = """
            SELECT count(*) FROM heap_page_items(get_raw_page('pacer_windows', (SELECT (ctid::text::point)[0]::int FROM pacer_windows WHERE app = $1)))
            WHERE t_xmin = (SELECT xmin FROM pacer_windows WHERE app = $1)
            """
        return try admin.execute(sql, [app]).value(0, 0).flatMap { Int($0) } ?? -1
    }

    @Test func aBatchLocksItsWindowWithoutWritingItAndARefusalWritesNothing() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try PostgresLink(uri: uri, label: "test").run { try PostgresSchema.apply(on: $0) }
        let db = try PostgresConnection(uri), admin = try PostgresConnection(uri)
        try admin.execute("CREATE EXTENSION IF NOT EXISTS pageinspect")
        let settings = SharedPacerTests.settings(1, window: 60_000, queue: 0, maxWait: 0)
        #expect(try PostgresSendPacer.reserve([.init(app: "x", count: 1, now: 1_000)], settings: settings, instance: "one", on: db) == [.granted([1_000])])
        let written = try admin.execute("SELECT xmin::text FROM pacer_windows WHERE app = 'x'").value(0, 0)
        db.statementsSent = 0
        let refused = try PostgresSendPacer.reserve([.init(app: "x", count: 1, now: 2_000)], settings: settings, instance: "one", on: db)
        #expect(refused == [.refused(retryAfterSeconds: 59)])
        #expect(db.statementsSent == 1, "the lock alone, then the sync point")
        #expect(try admin.execute("SELECT xmin::text FROM pacer_windows WHERE app = 'x'").value(0, 0) == written,
                "a batch that grants nothing leaves its window's row as it was (the upsert wrote a new version)")
        #expect(try PostgresSendPacer.reserve([.init(app: "x", count: 1, now: 70_000)], settings: settings, instance: "one", on: db) == [.granted([70_000])])
        #expect(try Self.versionsByLastWriter("x", admin) == 1, "a granting batch writes its window once: the store's version only")
        #expect(try admin.execute("SELECT slots FROM pacer_windows WHERE app = 'x'").value(0, 0) == "{70000}", "the expired send left the window")
        #expect(try admin.execute("SELECT slots FROM pacer_holds WHERE app = 'x' AND instance = 'one'").value(0, 0) == "{70000}")
    }

    @Test func theReadLockMakesItsTransactionsCommitAsynchronousAndSkipsMissingApps() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try PostgresLink(uri: uri, label: "test").run { try PostgresSchema.apply(on: $0) }
        let db = try PostgresConnection(uri), other = try PostgresConnection(uri)
        try db.execute("INSERT INTO pacer_windows (app, slots) VALUES ('b c', '{5}')")
        try db.execute("BEGIN")
        let rows = try db.execute(PostgresSendPacer.SQL.readWindows, [PostgresSendPacer.textArray(["a", "b c"])]).rows
        #expect(rows.map { $0[0] ?? "" } == ["0 {5} {} b c"], "the existing window only, as the upsert returns it")
        #expect(try db.execute("SHOW synchronous_commit").value(0, 0) == "off", "the read lock set it")
        #expect(throws: PostgresError.self, "the row is locked") {
            try other.execute("SELECT app FROM pacer_windows WHERE app = 'b c' FOR UPDATE NOWAIT")
        }
        try db.execute("COMMIT")
        #expect(try db.execute("SHOW synchronous_commit").value(0, 0) == "on", "for that transaction only")
    }

    /// The prepared read lock is planned once for any values, not at every batch: on a
    /// `pacer_windows` never analyzed, a plan for the batch's one app looked cheaper than the
    /// generic one, and PostgreSQL made a custom plan for every run.
    @Test func theReadLockKeepsOneGenericPlan() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try PostgresLink(uri: uri, label: "test").run { try PostgresSchema.apply(on: $0) }
        let db = try PostgresConnection(uri)
        let settings = SharedPacerTests.settings(100)
        for k: Int64 in 0..<10 {
            #expect(try PostgresSendPacer.reserve([.init(app: "x", count: 1, now: 1_000 + k)], settings: settings, instance: "one", on: db) == [.granted([1_000 + k])])
        }
        let plans = try db.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1", [PostgresSendPacer.SQL.readWindows]).rows
        #expect(plans.map { $0.map { $0 ?? "" } } == [["5", "5"]], "ten runs: five custom plans (PostgreSQL's trial), then the generic one kept")
    }

    /// A batch with an app whose row is missing locks every app's row with the upsert in a
    /// transaction of its own, and answers as ``PacerWindow``'s rule; the next batch reads them.
    @Test func aBatchWithANewAppAndAKnownOneAnswersAsTheRule() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try PostgresLink(uri: uri, label: "test").run { try PostgresSchema.apply(on: $0) }
        let db = try PostgresConnection(uri), admin = try PostgresConnection(uri)
        let settings = SharedPacerTests.settings(2, window: 60_000, queue: 5, maxWait: 130_000)
        try admin.execute("INSERT INTO pacer_windows (app, slots) VALUES ('known', '{900,950}')")
        var known = PacerWindow(slots: [900, 950], blockedUntil: 0), fresh = PacerWindow()
        let asks: [PacerBatchQueue.Ask] = [.init(app: "known", count: 1, now: 1_000), .init(app: "new", count: 2, now: 1_000), .init(app: "new", count: 1, now: 1_001)]
        let expected = [known.reserve(count: 1, now: 1_000, settings: settings), fresh.reserve(count: 2, now: 1_000, settings: settings),
                        fresh.reserve(count: 1, now: 1_001, settings: settings)]
        db.statementsSent = 0
        #expect(try PostgresSendPacer.reserve(asks, settings: settings, instance: "one", on: db) == expected)
        #expect(db.statementsSent == 3, "the read lock, the upsert that creates the missing row, the store")
        #expect(try admin.execute("SELECT string_agg(app || ' ' || slots::text, '; ' ORDER BY app) FROM pacer_windows").value(0, 0)
                == "known {900,950,60900}; new {1000,1000,61000}")
        db.statementsSent = 0
        let next = [known.reserve(count: 1, now: 2_000, settings: settings), fresh.reserve(count: 1, now: 2_000, settings: settings)]
        #expect(try PostgresSendPacer.reserve([.init(app: "known", count: 1, now: 2_000), .init(app: "new", count: 1, now: 2_000)],
                                              settings: settings, instance: "one", on: db) == next)
        #expect(db.statementsSent == 2, "both rows there: the read lock and the store")
    }
}
