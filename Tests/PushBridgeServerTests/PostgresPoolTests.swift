import Foundation
import Synchronization
import Testing
@testable import PushBridgeServer

/// The connection pool against a real server: its size bound, its acquire timeout, and
/// reconnecting by itself after the server restarts.
@Suite(.serialized) struct PostgresPoolTests {
    @Test func neverOpensMoreThanItsSizeAndReusesConnections() throws {
        let uri = try PostgresURI(try PostgresTestCluster.start().makeDatabase())
        var configuration = PostgresPoolConfiguration()
        configuration.size = 2
        let pool = PostgresPool(uri: uri, configuration: configuration)
        let concurrent = Atomic<Int>(0), peak = Atomic<Int>(0)
        onThreads(8) { _ in
            _ = try? pool.withConnection { connection in
                let now = concurrent.add(1, ordering: .relaxed).newValue
                peak.max(now, ordering: .relaxed)
                try connection.execute("SELECT pg_sleep(0.05)")
                concurrent.subtract(1, ordering: .relaxed)
            }
        }
        #expect(peak.load(ordering: .relaxed) == 2)
        #expect(pool.statistics.opened == 2)
        let backends = try pool.withConnection { try $0.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()").value(0, 0) }
        #expect(backends == "2")
    }

    @Test func aBorrowerGivesUpAfterTheAcquireTimeout() throws {
        let uri = try PostgresURI(try PostgresTestCluster.start().makeDatabase())
        var configuration = PostgresPoolConfiguration()
        configuration.size = 1
        configuration.acquireTimeout = .milliseconds(200)
        let pool = PostgresPool(uri: uri, configuration: configuration)
        let started = ContinuousClock.now
        try pool.withConnection { _ -> Void in
            #expect {
                try pool.withConnection { _ in () }
            } throws: { error in
                (error as? PostgresError)?.operation == "acquire"
            }
        }
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(pool.statistics.acquireTimeouts == 1)
        // The slot came back: the next borrower gets it at once.
        #expect(try pool.withConnection { try $0.execute("SELECT 1").value(0, 0) } == "1")
    }

    @Test func anUnreachableServerFailsWithinTheConnectTimeout() throws {
        // A port nobody listens on: refused at once, reported as a connect failure.
        let pool = PostgresPool(uri: try PostgresURI("postgresql://postgres@127.0.0.1:1/none"))
        #expect {
            try pool.withConnection { _ in }
        } throws: { error in
            (error as? PostgresError)?.operation == "connect"
        }
        #expect(pool.statistics.connectFailures == 1)
    }

    @Test func reconnectsByItselfAfterTheServerRestarts() throws {
        let cluster = try PostgresTestCluster.startPrivate()
        defer { cluster.stop() }
        let pool = PostgresPool(uri: try PostgresURI(try cluster.makeDatabase()))
        let firstPID = try pool.withConnection { $0.backendPID }
        try cluster.restart()
        // The idle connection's server is gone: the first statement on it fails as lost...
        #expect {
            try pool.withConnection { try $0.execute("SELECT 1") }
        } throws: { error in
            (error as? PostgresError)?.connectionLost == true
        }
        // ...and the pool dropped it: the next borrower gets a new connection that works.
        let (value, secondPID) = try pool.withConnection { (try $0.execute("SELECT 42").value(0, 0), $0.backendPID) }
        #expect(value == "42")
        #expect(secondPID != firstPID)
        #expect(pool.statistics.lost == 1)
        #expect(pool.statistics.opened == 2)
    }
}
