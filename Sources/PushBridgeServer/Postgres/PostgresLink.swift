import Dispatch

/// One PostgreSQL connection for one of the shared subsystems (the pacer, the scheduled
/// starts, the instance registry): a ``PostgresPool`` of one, so it connects within the
/// pool's connect timeout, is used by one caller at a time (others wait up to the acquire
/// timeout), and is opened again on the next call after the server dropped it, so a
/// restarted PostgreSQL needs no PushBridge restart.
///
/// ``run(_:)`` blocks its thread for the statements it runs; ``runOffPool(_:)`` runs them on
/// the link's own queue, so a wait on a row lock never holds a cooperative-pool thread.
public final class PostgresLink: Sendable {
    /// The URI it connects with.
    public var uri: String { pool.uri.text }
    private let pool: PostgresPool
    private let queue: DispatchQueue

    /// A link to `uri`; nothing connects before the first call.
    public init(uri: String, label: String) throws(PostgresError) {
        var configuration = PostgresPoolConfiguration()
        configuration.size = 1
        pool = PostgresPool(uri: try PostgresURI(uri), configuration: configuration)
        queue = DispatchQueue(label: "pushbridge-postgres-\(label)")
    }

    /// Runs `body` on the connection (connecting first when there is none); a lost
    /// connection is dropped, so the next call connects again. Throws what `body` threw.
    public func run<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try pool.withConnection(body)
    }

    /// ``run(_:)`` on the link's own queue.
    public func runOffPool<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await onQueue { try self.run(body) }
    }

    /// Runs `body` (which may call ``run(_:)`` several times) on the link's own queue.
    public func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
