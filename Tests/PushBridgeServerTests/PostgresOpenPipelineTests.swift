import Testing
@testable import PushBridgeServer

/// A pipeline's implicit transaction held open over two round trips
/// (``PostgresConnection/openPipeline(_:prepared:)`` and ``PostgresConnection/closePipeline(_:prepared:)``):
/// one transaction without `BEGIN` or `COMMIT`, its row locks held in between, committed by
/// the sync point, rolled back when a statement fails.
@Suite(.serialized) struct PostgresOpenPipelineTests {
    static func database() throws -> (db: PostgresConnection, other: PostgresConnection) {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let db = try PostgresConnection(uri), other = try PostgresConnection(uri)
        try db.execute("CREATE TABLE w (app TEXT PRIMARY KEY, n BIGINT NOT NULL)")
        try db.execute("INSERT INTO w VALUES ('a', 1)")
        return (db, other)
    }

    @Test(arguments: [false, true])
    func bothRoundTripsAreOneTransactionHoldingItsLocksAndItsLocalSettingsUntilTheSyncPoint(prepared: Bool) throws {
        let (db, other) = try Self.database()
        db.statementsSent = 0
        let opened = try db.openPipeline([("SELECT n::text FROM w WHERE app = $1 FOR UPDATE", ["a"]),
                                          ("SELECT txid_current()::text || ' ' || set_config('synchronous_commit', 'off', true)", [])], prepared: prepared)
        guard case .done(_, let read)? = opened.first, case .done(_, let first)? = opened.last else {
            Issue.record("the opening statements ran: \(opened)")
            return
        }
        #expect(read == ["1"])
        // Between the round trips the row is locked: another session cannot take it.
        #expect(throws: PostgresError.self, "the row lock is held between the round trips") {
            try other.execute("SELECT n FROM w WHERE app = 'a' FOR UPDATE NOWAIT")
        }
        let closed = try db.closePipeline([("UPDATE w SET n = n + 1 WHERE app = $1", ["a"]),
                                           ("SELECT txid_current()::text || ' ' || current_setting('synchronous_commit')", [])], prepared: prepared)
        guard case .done(let updated, _)? = closed.first, case .done(_, let second)? = closed.last else {
            Issue.record("the closing statements ran: \(closed)")
            return
        }
        #expect(updated == 1)
        #expect(second == first, "one transaction over both round trips, its local setting kept: \(first) / \(second)")
        #expect(first.first??.hasSuffix(" off") == true)
        #expect(db.statementsSent == 4, "no BEGIN, no COMMIT")
        #expect(try other.execute("SELECT n FROM w WHERE app = 'a' FOR UPDATE NOWAIT").value(0, 0) == "2", "committed by the sync point")
        #expect(try db.execute("SHOW synchronous_commit").value(0, 0) == "on", "the setting was the transaction's own")
        #expect(try db.execute("SELECT 1").value(0, 0) == "1", "the connection left pipeline mode")
    }

    @Test func aStatementRefusedInEitherRoundTripRollsBackBothAndLeavesTheConnectionUsable() throws {
        let (db, _) = try Self.database()
        // Refused in the second round trip: the first's change is rolled back with it.
        _ = try db.openPipeline([("UPDATE w SET n = 10 WHERE app = $1", ["a"])], prepared: true)
        let closed = try db.closePipeline([("INSERT INTO w VALUES ($1, 5)", ["a"])], prepared: true)
        guard case .failed(let error)? = closed.first else {
            Issue.record("the duplicate key was refused: \(closed)")
            return
        }
        #expect(error.sqlState == "23505")
        #expect(try db.execute("SELECT n FROM w WHERE app = 'a'").value(0, 0) == "1", "nothing of either round trip committed")
        // Refused in the first: the transaction ends there, the connection is out of pipeline mode.
        let opened = try db.openPipeline([("UPDATE w SET n = 20 WHERE app = $1", ["a"]), ("SELECT 1/0", [])], prepared: false)
        guard case .failed(let division)? = opened.last else {
            Issue.record("the division by zero was refused: \(opened)")
            return
        }
        #expect(division.sqlState == "22012")
        #expect(try db.execute("SELECT n FROM w WHERE app = 'a'").value(0, 0) == "1", "rolled back at the opening's own sync point")
        #expect(!db.transactionFailed)
    }
}
