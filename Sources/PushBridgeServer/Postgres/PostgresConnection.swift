import CLibPQ
#if canImport(Glibc)
import Glibc
#endif

/// One connection to PostgreSQL (a libpq `PGconn`), owned here and closed in `deinit`.
///
/// Not `Sendable`: one thread (a writer, a pool slot) uses it at a time. Statements take
/// their arguments as text parameters (`$1`, `$2`, …), never spliced into the SQL. The
/// password never comes from PushBridge's configuration: libpq reads `PGPASSWORD`,
/// `PGPASSFILE` or `~/.pgpass` itself (``PostgresURI`` refuses a URI that carries one).
public final class PostgresConnection {
    /// The libpq connection; used only by this type and its extensions.
    let handle: OpaquePointer
    /// The statements prepared on this connection by ``pipeline(_:prepared:)`` and
    /// ``executePrepared(_:_:)``, by SQL: their names.
    var preparedNames: [String: String] = [:]
    /// Statement names given out on this connection (``nextPreparedName()``): a name is never
    /// reused, even for a text forgotten since.
    var preparedCount = 0
    /// The audit's SQL texts (`?` marks) run on this connection, with their marks numbered.
    var numberedTexts: [String: String] = [:]
    /// Statements sent on this connection (one each by ``execute(_:_:)`` and
    /// ``executeScript(_:)``, one per statement of a ``pipeline(_:prepared:)``): how the
    /// audit writer counts what a batch costs the server.
    var statementsSent = 0

    /// Connects with a libpq URI or `key=value` string; throws with libpq's reason when the
    /// server cannot be reached or refuses the connection. `connectTimeout` (whole seconds,
    /// libpq's `connect_timeout`; at least 2) applies unless the URI sets its own.
    public init(_ conninfo: String, connectTimeout: Duration? = nil) throws(PostgresError) {
        let seconds = connectTimeout.map { String(max(2, $0.components.seconds)) }
        // Later keywords win: the URI (expanded from `dbname`) overrides the default timeout.
        let keywords = seconds == nil ? ["dbname"] : ["connect_timeout", "dbname"]
        let values = (seconds.map { [$0] } ?? []) + [conninfo]
        let connection = Self.withCStrings(keywords) { keys in
            Self.withCStrings(values) { vals in PQconnectdbParams(keys, vals, 1) }
        }
        guard let connection else {
            throw PostgresError(operation: "connect", message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(operation: "connect", message: message)
        }
        handle = connection
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection is still usable as far as libpq knows.
    public var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether the open transaction was aborted by an error (only `ROLLBACK` works now).
    public var transactionFailed: Bool { PQtransactionStatus(handle) == PQTRANS_INERROR }

    /// The server's process id for this connection (for tests that terminate it).
    public var backendPID: Int32 { PQbackendPID(handle) }

    /// Runs one statement with text parameters; throws with the SQLSTATE and message when the
    /// server refuses it or the connection is gone.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresResult {
        statementsSent += 1
        let result = withParameters(parameters) { values in
            PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        guard let result else {
            throw PostgresError(operation: "execute", message: String(cString: PQerrorMessage(handle)), sql: sql)
        }
        return try check(PostgresResult(result), sql: sql)
    }

    /// `result` when it succeeded; otherwise throws with its SQLSTATE and message.
    private func check(_ result: PostgresResult, sql: String) throws(PostgresError) -> PostgresResult {
        guard let failure = result.failure else { return result }
        throw PostgresError(operation: "execute", sqlState: failure.sqlState, message: failure.message, sql: sql)
    }

    /// Runs a script of several statements without parameters (a migration); throws like
    /// ``execute(_:_:)``.
    public func executeScript(_ sql: String) throws(PostgresError) {
        statementsSent += 1
        guard let result = PQexec(handle, sql) else {
            throw PostgresError(operation: "execute", message: String(cString: PQerrorMessage(handle)), sql: sql)
        }
        _ = try check(PostgresResult(result), sql: sql)
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        let value: T
        do {
            value = try body()
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
        try execute("COMMIT")
        return value
    }

    /// Calls `body` with `strings` as a NULL-terminated array of C strings that live for the call.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { body($0) }
        }
    }

    /// Calls `body` with the parameters as C strings that live for the call (nil for NULL).
    func withParameters<R>(_ parameters: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.flatMap { strdup($0) } }
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { body($0) }
            } ?? body(nil)
        }
    }
}
