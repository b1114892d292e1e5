import Foundation
import PushBridgeCore
import Synchronization
import Testing
@testable import PushBridgeServer

/// The shared pacer's batches: reservations waiting on the pacer's queue, of any apps, are
/// carried in one transaction, and the window still holds across instances.
@Suite(.serialized) struct SharedPacerBatchTests {
    /// Grant times per app from `answers`, with each caller's app.
    static func grants(_ answers: [(app: String, answer: SendPacer.Reservation)]) -> [String: [Int64]] {
        answers.reduce(into: [:]) { all, entry in
            if case .granted(let g) = entry.answer { all[entry.app, default: []] += g }
        }
    }

    /// Fails for every window of `span` ms holding more than `limit` of `times`.
    static func expectWithinWindow(_ times: [Int64], limit: Int, span: Int64, _ app: String) {
        let sorted = times.sorted()
        for (i, start) in sorted.enumerated() {
            let inWindow = sorted[i...].prefix { $0 < start + span }.count
            #expect(inWindow <= limit, "\(app): \(inWindow) sends in the window from \(start)")
        }
    }

    /// Blocks until `admin` sees a backend of this database waiting on a lock.
    static func waitForLockWait(_ admin: PostgresConnection) async throws {
        let waiting = try await firstValue(within: 15) { () -> Bool? in
            let n = try admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'").value(0, 0)
            return n.flatMap { Int($0) } ?? 0 > 0 ? true : nil
        }
        #expect(waiting == true, "a batch is waiting for the row lock")
    }

    @Test func manyConcurrentReservationsOnTwoPacersNeverExceedTheWindowAndShareTransactions() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let settings = SharedPacerTests.settings(4, window: 10_000, queue: 1_000, maxWait: 10_000_000)
        let pacers = [try SharedPacerTests.pacer(uri, settings, instance: "a"), try SharedPacerTests.pacer(uri, settings, instance: "b")]
        // Hold every app's row so the first batch of each pacer waits and the rest pile up behind it.
        let admin = try PostgresConnection(uri), watcher = try PostgresConnection(uri)
        try admin.execute("INSERT INTO pacer_windows (app) VALUES ('x'), ('y'), ('z')")
        try admin.execute("BEGIN")
        try admin.execute("SELECT app FROM pacer_windows ORDER BY app FOR UPDATE")
        let apps = ["x", "y", "z"], perPacer = 60
        async let answers = withTaskGroup(of: (String, SendPacer.Reservation).self) { group in
            for (p, pacer) in pacers.enumerated() {
                for k in 0..<perPacer {
                    let app = apps[(k + p) % apps.count]
                    group.addTask { (app, await pacer.reserve(app: app, count: 1 + k % 2, now: 1_000 + Int64(k))) }
                }
            }
            return await group.reduce(into: [(app: String, answer: SendPacer.Reservation)]()) { $0.append(($1.0, $1.1)) }
        }
        for pacer in pacers {
            let queued = await eventually(15) { let s = pacer.batchStatistics; return s.reservations + s.waiting == perPacer }
            #expect(queued, "every reservation of the pacer reached its queue")
        }
        try await Self.waitForLockWait(watcher)
        try admin.execute("COMMIT")
        let all = await answers
        #expect(all.count == 2 * perPacer, "every caller was answered")
        let byApp = Self.grants(all)
        #expect(byApp.values.reduce(0) { $0 + $1.count } == 2 * (perPacer / 2 * 1 + perPacer / 2 * 2), "every send got a slot")
        for (app, times) in byApp { Self.expectWithinWindow(times, limit: 4, span: 10_000, app) }
        for pacer in pacers {
            let stats = pacer.batchStatistics
            #expect(stats.reservations == perPacer)
            #expect(stats.batches <= 2, "\(perPacer) reservations in \(stats.batches) transactions: the one held by the lock and the rest together")
        }
        let stored = try admin.execute("SELECT sum(cardinality(slots)) FROM pacer_windows").value(0, 0).flatMap { Int($0) }
        #expect(stored == 180, "every grant is in the shared windows")
    }

    @Test func aBatchWithOneAppsRowLockedElsewhereStillAnswersEveryCaller() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let pacer = try SharedPacerTests.pacer(uri, SharedPacerTests.settings(100))
        let admin = try PostgresConnection(uri), watcher = try PostgresConnection(uri)
        try admin.execute("INSERT INTO pacer_windows (app, slots) VALUES ('locked', '{500}')")
        try admin.execute("BEGIN")
        try admin.execute("SELECT app FROM pacer_windows WHERE app = 'locked' FOR UPDATE")
        let answered = Counter()
        let first = Task { () -> SendPacer.Reservation in
            defer { answered.add() }
            return await pacer.reserve(app: "locked", count: 1, now: 1_000)
        }
        try await Self.waitForLockWait(watcher)
        let rest = (0..<10).map { k in
            Task { () -> (String, SendPacer.Reservation) in
                defer { answered.add() }
                let app = k % 2 == 0 ? "locked" : "free"
                return (app, await pacer.reserve(app: app, count: 1, now: 2_000))
            }
        }
        #expect(await eventually(15) { pacer.batchStatistics.waiting == 10 }, "the others wait for the batch held by the lock")
        #expect(answered.value == 0, "nobody is answered while the batch waits for the lock")
        try admin.execute("COMMIT")
        #expect(await first.value == .granted([1_000]))
        var answers: [(app: String, answer: SendPacer.Reservation)] = []
        for task in rest { answers.append(await task.value) }
        #expect(Self.grants(answers) == ["locked": Array(repeating: 2_000, count: 5), "free": Array(repeating: 2_000, count: 5)],
                "every caller of both apps got its slot")
        #expect(pacer.batchStatistics.batches == 2, "the ten that waited went in one transaction")
        let locked = try admin.execute("SELECT slots FROM pacer_windows WHERE app = 'locked'").value(0, 0)
        #expect(locked == "{500,1000,2000,2000,2000,2000,2000}", "the row held elsewhere was read after its lock was released")
        let held = try admin.execute("SELECT app, slots FROM pacer_holds ORDER BY app").rows
        #expect(held == [["free", "{2000,2000,2000,2000,2000}"], ["locked", "{1000,2000,2000,2000,2000,2000}"]])
    }

    @Test func aBatchWhoseWriteFailsGrantsNothingToAnyCallerAndLeavesTheConnectionUsable() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let pacer = try SharedPacerTests.pacer(uri, SharedPacerTests.settings(10), instance: "refused")
        let admin = try PostgresConnection(uri)
        try admin.execute("ALTER TABLE pacer_holds ADD CONSTRAINT not_refused CHECK (instance <> 'refused')")
        async let a = pacer.reserve(app: "a", count: 1, now: 1_000)
        async let b = pacer.reserve(app: "b", count: 2, now: 1_000)
        #expect(await [a, b] == [.unavailable, .unavailable], "no caller sends on a grant that was not stored")
        #expect(try admin.execute("SELECT count(*) FROM pacer_windows").value(0, 0) == "0", "the whole batch was rolled back")
        try admin.execute("ALTER TABLE pacer_holds DROP CONSTRAINT not_refused")
        #expect(await pacer.reserve(app: "a", count: 1, now: 2_000) == .granted([2_000]), "the next batch runs on a clean connection")
    }

    /// The pacer's statements are prepared once per connection (issue 30: they were parsed and
    /// planned for every batch, ~55 µs of the server's CPU per request) and sent in two
    /// round trips (three before) of one pipeline's implicit transaction (two statements a
    /// batch; four with `BEGIN` and `COMMIT` before), and its transaction
    /// commits without waiting for the WAL flush, for itself only: the session's own setting
    /// is untouched afterwards.
    @Test func aBatchRunsPreparedStatementsAndLeavesTheSessionDurable() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try PostgresLink(uri: uri, label: "test").run { try PostgresSchema.apply(on: $0) }
        let db = try PostgresConnection(uri)
        let settings = SharedPacerTests.settings(2)
        let odd = "an app with spaces"
        #expect(try PostgresSendPacer.reserve([.init(app: odd, count: 2, now: 500)], settings: settings, instance: "one", on: db) == [.granted([500, 500])])
        #expect(try PostgresSendPacer.reserve([.init(app: odd, count: 1, now: 600)], settings: settings, instance: "one", on: db) == [.granted([60_500])],
                "a window read back whole: its app's name holds spaces")
        db.statementsSent = 0
        for now: Int64 in [1_000, 2_000, 3_000] {
            let answers = try PostgresSendPacer.reserve([.init(app: "a", count: 1, now: now)], settings: settings, instance: "one", on: db)
            #expect(answers == [now < 3_000 ? .granted([now]) : .granted([61_000])])
        }
        #expect(db.statementsSent == 1 + 3 * 2, "two round trips a batch, one transaction without BEGIN or COMMIT: the lock, which sets the commit asynchronous; the store; and once, for the new app's row, the upsert that creates it")
        let prepared = try db.execute("SELECT statement FROM pg_prepared_statements ORDER BY statement").rows.map { $0[0] ?? "" }
        let statements = [PostgresSendPacer.SQL.readWindows, PostgresSendPacer.SQL.lockWindows, PostgresSendPacer.SQL.store]
        #expect(prepared == statements.sorted(), "each prepared once")
        #expect(try db.execute("SHOW synchronous_commit").value(0, 0) == "on", "the asynchronous commit was the transaction's own")
        #expect(try db.execute("SELECT slots FROM pacer_windows WHERE app = 'a'").value(0, 0) == "{1000,2000,61000}")
    }

    /// The windows' lock makes its transaction's commit asynchronous itself (one statement a
    /// batch fewer), whether the window is new or already there, and for that transaction only.
    @Test func theLockStatementMakesItsTransactionsCommitAsynchronous() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try PostgresLink(uri: uri, label: "test").run { try PostgresSchema.apply(on: $0) }
        let db = try PostgresConnection(uri)
        for round in ["new", "there"] {
            try db.execute("BEGIN")
            let rows = try db.execute(PostgresSendPacer.SQL.lockWindows, [PostgresSendPacer.textArray(["a", "b c"])]).rows
            #expect(rows.count == 2, "\(round): one row per app")
            #expect(try db.execute("SHOW synchronous_commit").value(0, 0) == "off", "\(round): the lock set it")
            try db.execute("COMMIT")
            #expect(try db.execute("SHOW synchronous_commit").value(0, 0) == "on", "\(round): for that transaction only")
        }
    }

    @Test func appNamesWithQuotesAndCommasKeepTheirOwnRows() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let pacer = try SharedPacerTests.pacer(uri, SharedPacerTests.settings(1))
        let odd = #"we"ird,{app}\ name"#
        async let a = pacer.reserve(app: odd, count: 2, now: 1_000)
        async let b = pacer.reserve(app: "plain", count: 1, now: 1_000)
        #expect(await a == .granted([1_000, 61_000]))
        #expect(await b == .granted([1_000]))
        let admin = try PostgresConnection(uri)
        #expect(try admin.execute("SELECT slots FROM pacer_windows WHERE app = $1", [odd]).value(0, 0) == "{1000,61000}")
        #expect(try admin.execute("SELECT count(*) FROM pacer_windows").value(0, 0) == "2")
    }
}

/// Callers answered so far.
private final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
