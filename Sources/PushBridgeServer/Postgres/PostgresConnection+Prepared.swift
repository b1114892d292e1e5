import CLibPQ

/// Statements with parameters parsed and planned once per connection: the first run of a SQL
/// text prepares it under a name (`PQprepare`), every later run executes that name
/// (`PQexecPrepared`), so the server skips the parse, analysis and planning an unnamed
/// statement pays on every call (the activity ledger's read on the request path paid ~90 µs of
/// planning per request for a ~20 µs lookup; `docs/benchmarks.md`, "PostgreSQL CPU per request").
///
/// The names are shared with ``pipeline(_:prepared:)``: a text prepared by either is executed by
/// both. At most ``preparedLimit`` texts are kept per connection; past it a text runs unnamed
/// as before, so SQL built per call (a report's filters) cannot grow the server's memory.
extension PostgresConnection {
    /// The most statements one connection keeps prepared.
    static let preparedLimit = 256

    /// Runs `sql` with text parameters as ``execute(_:_:)`` does, prepared on this connection
    /// the first time (a statement without parameters, a `BEGIN` or a DDL script, runs unnamed).
    /// A prepared statement the server no longer accepts (its table changed shape under it,
    /// SQLSTATE `0A000`: another instance migrated the schema) is forgotten and prepared again:
    /// at once outside a transaction, where the failure changed nothing; inside one, which the
    /// failure aborted, this run throws and the next prepares it afresh.
    @discardableResult
    func executePrepared(_ sql: String, _ parameters: [String?]) throws(PostgresError) -> PostgresResult {
        do {
            return try executeNamed(sql, parameters)
        } catch where error.sqlState == "0A000" && PQtransactionStatus(handle) == PQTRANS_IDLE {
            return try executeNamed(sql, parameters)
        }
    }

    /// One run of `sql` under its prepared name (prepared first when new).
    private func executeNamed(_ sql: String, _ parameters: [String?]) throws(PostgresError) -> PostgresResult {
        guard !parameters.isEmpty, let name = try preparedName(for: sql, parameterCount: parameters.count) else {
            return try execute(sql, parameters)
        }
        statementsSent += 1
        let result = withParameters(parameters) { values in
            PQexecPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
        }
        guard let result else {
            throw PostgresError(operation: "execute", message: String(cString: PQerrorMessage(handle)), sql: sql)
        }
        let checked = PostgresResult(result)
        if let failure = checked.failure {
            if failure.sqlState == "0A000" { preparedNames[sql] = nil }
            throw PostgresError(operation: "execute", sqlState: failure.sqlState, message: failure.message, sql: sql)
        }
        return checked
    }

    /// The name `sql` is prepared under on this connection, preparing it now when it is new;
    /// nil when the connection keeps ``preparedLimit`` texts already.
    private func preparedName(for sql: String, parameterCount: Int) throws(PostgresError) -> String? {
        if let known = preparedNames[sql] { return known }
        guard preparedNames.count < Self.preparedLimit else { return nil }
        // Not counted in ``statementsSent``, as a pipeline's `Parse` is not: the statement it
        // prepares is counted when it runs.
        let name = nextPreparedName()
        guard let raw = PQprepare(handle, name, sql, Int32(parameterCount), nil) else {
            throw PostgresError(operation: "prepare", message: String(cString: PQerrorMessage(handle)), sql: sql)
        }
        if let failure = PostgresResult(raw).failure {
            throw PostgresError(operation: "prepare", sqlState: failure.sqlState, message: failure.message, sql: sql)
        }
        preparedNames[sql] = name
        return name
    }

    /// A statement name never used on this connection.
    func nextPreparedName() -> String {
        preparedCount += 1
        return "pushbridge_\(preparedCount)"
    }
}
