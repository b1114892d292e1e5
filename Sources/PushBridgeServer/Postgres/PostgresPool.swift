import Dispatch
import Synchronization

/// A fixed-size pool of connections to one PostgreSQL database.
///
/// At most ``PostgresPoolConfiguration/size`` connections exist at once; a borrower waits up
/// to ``PostgresPoolConfiguration/acquireTimeout`` for one. Connections are opened lazily
/// (each within ``PostgresPoolConfiguration/connectTimeout``) and a connection that lost its
/// server (``PostgresError/connectionLost``) is closed instead of returned, so after a
/// PostgreSQL restart the next borrower connects afresh: the pool reconnects by itself.
///
/// Each connection is owned by the pool or by exactly one borrower at a time, and freed by
/// ``PostgresConnection``'s `deinit` when dropped.
public final class PostgresPool: Sendable {
    /// The database.
    public let uri: PostgresURI
    /// Its size and timeouts.
    public let configuration: PostgresPoolConfiguration
    private let permits: DispatchSemaphore
    private let state = Mutex(State())

    private struct State {
        var idle: [Idle] = []
        var statistics = PostgresPoolStatistics()
    }

    /// A connection no one holds. Sound to send: it leaves the idle list for one borrower only.
    private struct Idle: @unchecked Sendable {
        let connection: PostgresConnection
    }

    /// A pool for `uri`; connects nothing yet.
    public init(uri: PostgresURI, configuration: PostgresPoolConfiguration = PostgresPoolConfiguration()) {
        self.uri = uri
        self.configuration = configuration
        permits = DispatchSemaphore(value: max(1, configuration.size))
    }

    /// Counters: connections opened, failed to open, lost, borrowers that timed out.
    public var statistics: PostgresPoolStatistics { state.withLock { $0.statistics } }

    /// Runs `body` with a connection of its own (blocking the calling thread while it waits
    /// for one). The connection goes back to the pool afterwards, unless it lost its server.
    /// Throws ``PostgresError`` with operation `acquire` when none is free in time, or `connect`
    /// when the server cannot be reached.
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try acquire()
        do {
            let value = try body(connection)
            release(connection)
            return value
        } catch let error as PostgresError where error.connectionLost {
            discard()
            throw error
        } catch {
            release(connection)
            throw error
        }
    }

    /// A connection of the caller's own, held across calls (the audit writer holds one per
    /// batch) until ``giveBack(_:)``; waits and throws as ``withConnection(_:)`` does.
    func borrow() throws(PostgresError) -> PostgresConnection {
        try acquire()
    }

    /// Returns a connection from ``borrow()``: kept for the next borrower while healthy and not
    /// `lost` (an error without a SQLSTATE left it in an unknown state, as ``withConnection(_:)``
    /// treats one), closed and its slot freed otherwise.
    func giveBack(_ connection: PostgresConnection, lost: Bool) {
        if lost { discard() } else { release(connection) }
    }

    private func acquire() throws(PostgresError) -> PostgresConnection {
        let timeout = configuration.acquireTimeout
        let nanoseconds = Int(timeout.components.seconds) * 1_000_000_000 + Int(timeout.components.attoseconds / 1_000_000_000)
        guard permits.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else {
            state.withLock { $0.statistics.acquireTimeouts += 1 }
            throw PostgresError(operation: "acquire", message: "no connection to PostgreSQL became free within \(timeout)")
        }
        while let idle = state.withLock({ $0.idle.popLast() }) {
            if idle.connection.isHealthy { return idle.connection }
            state.withLock { $0.statistics.lost += 1 }
        }
        do {
            let connection = try PostgresConnection(uri.text, connectTimeout: configuration.connectTimeout)
            state.withLock { $0.statistics.opened += 1 }
            return connection
        } catch {
            state.withLock { $0.statistics.connectFailures += 1 }
            permits.signal()
            throw error
        }
    }

    private func release(_ connection: PostgresConnection) {
        if connection.isHealthy {
            let idle = Idle(connection: connection)
            state.withLock { $0.idle.append(idle) }
        } else {
            state.withLock { $0.statistics.lost += 1 }
        }
        permits.signal()
    }

    /// Drops a connection whose server is gone (its `deinit` closes it) and frees its slot.
    private func discard() {
        state.withLock { $0.statistics.lost += 1 }
        permits.signal()
    }

    /// Closes every idle connection (borrowed ones close when returned after this).
    public func closeIdle() {
        state.withLock { $0.idle.removeAll() }
    }
}

/// A ``PostgresPool``'s size and timeouts. Every value has a documented default.
public struct PostgresPoolConfiguration: Sendable, Equatable {
    /// Connections open at most. Default 4.
    public var size = 4
    /// How long opening one connection may take (libpq's `connect_timeout`, whole seconds, at
    /// least 2) unless the URI sets `connect_timeout` itself. Default 5 s.
    public var connectTimeout: Duration = .seconds(5)
    /// How long a borrower waits for a free connection. Default 5 s.
    public var acquireTimeout: Duration = .seconds(5)

    /// The defaults.
    public init() {}
}

/// What a ``PostgresPool`` has done since it was created.
public struct PostgresPoolStatistics: Sendable, Equatable {
    /// Connections opened.
    public var opened = 0
    /// Connection attempts that failed (server unreachable, refused, timed out).
    public var connectFailures = 0
    /// Connections closed because their server was gone.
    public var lost = 0
    /// Borrowers that gave up waiting for a free connection.
    public var acquireTimeouts = 0
}
