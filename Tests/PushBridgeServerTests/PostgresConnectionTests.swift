import Foundation
import Testing
@testable import PushBridgeServer

/// The libpq connection PushBridge's PostgreSQL store is built on, against a real server.
@Suite(.serialized) struct PostgresConnectionTests {
    @Test func parametersRoundTripExactlyAndNullStaysNull() throws {
        let db = try PostgresConnection(try PostgresTestCluster.start().makeDatabase())
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
        let tricky = "it's \"quoted\"; DROP TABLE t; -- ünïcødé 🚀"
        try db.execute("INSERT INTO t (id, body) VALUES ($1, $2), ($3, $4)", ["1", tricky, "2", nil])
        let rows = try db.execute("SELECT id, body FROM t ORDER BY id").rows
        #expect(rows == [["1", tricky], ["2", nil]])
        #expect(try db.execute("UPDATE t SET body = 'x' WHERE id >= $1", ["1"]).affectedRows == 2)
    }

    /// A statement the server refuses before it runs (it cannot be parsed, or a parameter has
    /// no type) fails alone in a pipeline: the ones after it are skipped, the sync point is
    /// reached, and the connection answers the next statement.
    @Test(arguments: ["SELEC 1", "SELECT $1 IS NULL OR EXISTS (SELECT 1 WHERE $1 IS NULL)", "SELECT no_such_column FROM pg_class"], [false, true])
    func aStatementRefusedBeforeItRunsFailsAloneInAPipeline(_ refused: String, prepared: Bool) throws {
        let db = try PostgresConnection(try PostgresTestCluster.start().makeDatabase())
        try db.execute("CREATE TABLE p (k TEXT PRIMARY KEY)")
        // As the audit writer sends a batch: inside an open transaction, ending in COMMIT.
        try db.execute("BEGIN")
        let results = try db.pipeline([("INSERT INTO p VALUES ($1)", ["a"]), (refused, refused.contains("$1") ? [nil] : []), ("INSERT INTO p VALUES ($1)", ["b"]),
                                       ("COMMIT", [])], prepared: prepared)
        #expect(results.count == 4)
        if case .failed(let error) = results[1] { #expect(error.sqlState != nil && !error.connectionLost) } else { Issue.record("\(results[1])") }
        if case .skipped = results[2] {} else { Issue.record("\(results[2])") }
        try db.execute("ROLLBACK")
        #expect(try db.execute("SELECT count(*) FROM p").value(0, 0) == "0")
    }

    /// The audit writer's statements prepared once per connection: the second pipeline reuses
    /// them, and one whose `Parse` was skipped after an earlier failure is prepared again the
    /// next time instead of failing as unknown.
    @Test func aPreparedStatementIsReusedAndOneSkippedAfterAFailureIsPreparedAgain() throws {
        let db = try PostgresConnection(try PostgresTestCluster.start().makeDatabase())
        try db.execute("CREATE TABLE q (k TEXT PRIMARY KEY, n BIGINT)")
        let insert = "INSERT INTO q VALUES ($1, $2)", bump = "UPDATE q SET n = n + 1 WHERE k = $1"
        try db.execute("BEGIN")
        let first = try db.pipeline([(insert, ["a", "1"]), (insert, ["a", "2"]), (bump, ["a"]), ("COMMIT", [])], prepared: true)
        if case .failed(let error) = first[1] { #expect(error.sqlState == "23505") } else { Issue.record("\(first[1])") }
        if case .skipped = first[2] {} else { Issue.record("\(first[2])") }
        try db.execute("ROLLBACK")
        #expect(db.preparedNames.keys.sorted() == [insert])
        try db.execute("BEGIN")
        let second = try db.pipeline([(insert, ["a", "1"]), (insert, ["b", "5"]), (bump, ["a"]), (bump, ["b"]), ("COMMIT", [])], prepared: true)
        #expect(second.allSatisfy { if case .done = $0 { true } else { false } })
        #expect(Set(db.preparedNames.keys) == [insert, bump])
        #expect(try db.execute("SELECT k, n FROM q ORDER BY k").rows == [["a", "2"], ["b", "6"]])
    }

    /// The audit's reads and changes (the activity ledger's lookup on every request among them)
    /// are prepared once per connection and then only executed (issue 30: each was parsed and
    /// planned per call); a statement without values runs unnamed.
    @Test func auditStatementsWithValuesArePreparedOncePerConnection() throws {
        let db = try PostgresConnection(try PostgresTestCluster.start().makeDatabase())
        try db.execute("CREATE TABLE r (k TEXT PRIMARY KEY, n BIGINT)")
        let sql: any AuditSQL = db
        for k in ["a", "b", "c"] { #expect(try sql.change("INSERT INTO r VALUES (?, ?)", [.text(k), .integer(1)]) == 1) }
        for k in ["a", "b", "c"] { #expect(try sql.select("SELECT n FROM r WHERE k = ?", [.text(k)]) == [[.integer(1)]]) }
        #expect(try sql.select("SELECT count(*) FROM r", []) == [[.integer(3)]])
        let prepared = try db.execute("SELECT statement FROM pg_prepared_statements ORDER BY statement").rows.map { $0[0] ?? "" }
        #expect(prepared == ["INSERT INTO r VALUES ($1, $2)", "SELECT n FROM r WHERE k = $1"])
    }

    /// A prepared statement whose table changed shape under it (another instance migrated the
    /// schema) is prepared again: outside a transaction the same call answers; inside one the
    /// call fails (the transaction is aborted) and the next call answers.
    @Test func aPreparedStatementWhoseTableChangedShapeIsPreparedAgain() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let db = try PostgresConnection(uri)
        try db.execute("CREATE TABLE s (k TEXT PRIMARY KEY)")
        try db.execute("INSERT INTO s VALUES ('a')")
        let sql: any AuditSQL = db
        #expect(try sql.select("SELECT * FROM s WHERE k = ?", [.text("a")]) == [[.text("a")]])
        try PostgresConnection(uri).execute("ALTER TABLE s ADD COLUMN n BIGINT DEFAULT 7")
        #expect(try sql.select("SELECT * FROM s WHERE k = ?", [.text("a")]) == [[.text("a"), .integer(7)]])
        try db.execute("ALTER TABLE s ADD COLUMN m BIGINT DEFAULT 8")
        try db.execute("BEGIN")
        #expect(throws: PostgresError.self) { try sql.select("SELECT * FROM s WHERE k = ?", [.text("a")]) }
        try db.execute("ROLLBACK")
        #expect(try sql.select("SELECT * FROM s WHERE k = ?", [.text("a")]) == [[.text("a"), .integer(7), .integer(8)]])
    }

    @Test func refusedStatementsCarryTheirSQLStateAndSQL() throws {
        let db = try PostgresConnection(try PostgresTestCluster.start().makeDatabase())
        try db.execute("CREATE TABLE u (k TEXT PRIMARY KEY)")
        try db.execute("INSERT INTO u VALUES ($1)", ["a"])
        #expect {
            try db.execute("INSERT INTO u VALUES ($1)", ["a"])
        } throws: { error in
            guard let e = error as? PostgresError else { return false }
            return e.sqlState == "23505" && !e.connectionLost && e.description.contains("INSERT INTO u") && !e.description.contains("\"a\"")
        }
        #expect(throws: PostgresError.self) { try db.execute("SELEC 1") }
        // The connection is still usable after a refused statement.
        #expect(try db.execute("SELECT count(*) FROM u").value(0, 0) == "1")
    }

    @Test func aTransactionThatThrowsLeavesNothing() throws {
        struct Abort: Error {}
        let db = try PostgresConnection(try PostgresTestCluster.start().makeDatabase())
        try db.execute("CREATE TABLE v (x INTEGER)")
        #expect(throws: Abort.self) {
            try db.transaction {
                try db.execute("INSERT INTO v VALUES (1)")
                throw Abort()
            }
        }
        #expect(try db.execute("SELECT count(*) FROM v").value(0, 0) == "0")
    }

    @Test func aTerminatedConnectionIsReportedAsLost() throws {
        let cluster = try PostgresTestCluster.start()
        let uri = try cluster.makeDatabase()
        let victim = try PostgresConnection(uri)
        let admin = try PostgresConnection(uri)
        try admin.execute("SELECT pg_terminate_backend($1)", [String(victim.backendPID)])
        #expect {
            try victim.execute("SELECT 1")
        } throws: { error in
            (error as? PostgresError)?.connectionLost == true
        }
        #expect(!victim.isHealthy)
    }

    @Test func nothingListeningIsAConnectError() throws {
        let cluster = try PostgresTestCluster.start()
        #expect {
            try PostgresConnection("postgresql://postgres@127.0.0.1:\(cluster.port == 1 ? 2 : 1)/postgres?connect_timeout=2")
        } throws: { error in
            guard let e = error as? PostgresError else { return false }
            return e.operation == "connect" && e.connectionLost
        }
    }

    @Test(arguments: [
        ("postgresql://pb@db.internal:5432/audit?sslmode=verify-full&sslrootcert=/etc/ca.pem", true),
        ("postgres://pb@127.0.0.1/audit", true),
        ("postgresql://pb:hunter2@127.0.0.1/audit", false),
        ("postgresql://127.0.0.1/audit?password=hunter2", false),
        ("postgresql://pb@127.0.0.1/audit?nosuchparameter=1", false),
        ("/var/lib/pushbridge/audit.sqlite", false),
    ])
    func uriRules(uri: String, accepted: Bool) {
        let result = Result { () throws(PostgresError) in try PostgresURI(uri) }
        switch result {
        case .success: #expect(accepted, "\(uri) was accepted")
        case .failure(let error):
            #expect(!accepted, "\(uri): \(error)")
            #expect(!error.description.contains("hunter2"))
        }
    }
}
