import CLibPQ

/// libpq's pipeline mode: many statements sent in one go and their results read back in
/// order, one round trip for all of them.
///
/// The statements between the start of a pipeline and its sync point run as one implicit
/// transaction, committed at the sync point: either every statement's effect is committed or,
/// after the first that fails, none is (the ones after it are skipped, ``PipelineResult/skipped``).
/// That is the group commit the audit writer wants, at one round trip per batch instead of
/// one per statement.
extension PostgresConnection {
    /// What became of one statement of a pipeline.
    enum PipelineResult {
        /// It ran; the rows it changed and, for a statement that returns rows (`RETURNING`),
        /// their first column's values.
        case done(affectedRows: Int, returned: [String?])
        /// The server refused it; nothing of the pipeline was committed.
        case failed(PostgresError)
        /// Not run: an earlier statement of the same pipeline failed.
        case skipped
    }

    /// Runs `statements` (SQL with `$n` marks and their text parameters) as one pipeline and
    /// one implicit transaction; one result per statement, in order, once the sync point
    /// has been passed (the transaction committed, or rolled back when one failed). Throws
    /// when the connection fails (``PostgresError/connectionLost``): whether the transaction
    /// committed is then unknown only if the sync point's answer was lost.
    ///
    /// `prepared`: each SQL text is parsed and planned once per connection (a named statement
    /// prepared in the same pipeline the first time it is sent, ``preparedNames``) instead of
    /// once per statement; the server does the same work with the same values.
    func pipeline(_ statements: [(sql: String, parameters: [String?])], prepared: Bool = false) throws(PostgresError) -> [PipelineResult] {
        try pipeline(statements.map { ($0.sql, $0.parameters.map(PostgresParameter.init)) }, prepared: prepared)
    }

    /// ``pipeline(_:prepared:)`` with parameters each sent as text or in its type's binary
    /// format (``PostgresParameter``).
    func pipeline(_ statements: [(sql: String, parameters: [PostgresParameter])], prepared: Bool = false) throws(PostgresError) -> [PipelineResult] {
        guard PQenterPipelineMode(handle) == 1 else { throw connectionError("enter pipeline mode") }
        // Every error thrown below has no SQLSTATE, so it counts as the connection lost and the
        // pool drops the connection rather than reuse one left in pipeline mode.
        return try syncPipeline(statements, prepared: prepared)
    }

    /// Sends `statements` on a connection in pipeline mode, then the sync point that ends the
    /// implicit transaction, and returns their results once it has ended; the connection
    /// leaves pipeline mode.
    func syncPipeline(_ statements: [(sql: String, parameters: [PostgresParameter])], prepared: Bool) throws(PostgresError) -> [PipelineResult] {
        let preparing = try sendPipelined(statements, prepared: prepared)
        guard PQpipelineSync(handle) == 1 else { throw connectionError("sync") }
        let results = try readPipelined(statements, preparing: preparing)
        try readSyncPoint()
        guard PQexitPipelineMode(handle) == 1 else { throw connectionError("exit pipeline mode") }
        return results
    }

    /// A statement prepared by the pipeline that sends it: its SQL and name, and the position
    /// of the first statement that uses it.
    typealias Preparing = (before: Int, sql: String, name: String)

    /// Sends `statements` on a connection in pipeline mode (no sync point, no flush); returns
    /// the statements it prepares (`prepared`: each SQL text a named statement, prepared in
    /// the same pipeline the first time it is sent, ``preparedNames``), for ``readPipelined(_:preparing:)``.
    func sendPipelined(_ statements: [(sql: String, parameters: [PostgresParameter])], prepared: Bool) throws(PostgresError) -> [Preparing] {
        var preparing: [Preparing] = []
        for (position, statement) in statements.enumerated() {
            let sent: Int32
            if prepared, statement.sql != "COMMIT", statement.sql != "BEGIN" {
                let name: String
                if let known = preparedNames[statement.sql] ?? preparing.first(where: { $0.sql == statement.sql })?.name {
                    name = known
                } else {
                    name = nextPreparedName()
                    guard PQsendPrepare(handle, name, statement.sql, Int32(statement.parameters.count), nil) == 1 else {
                        throw connectionError("send prepare", sql: statement.sql)
                    }
                    preparing.append((position, statement.sql, name))
                }
                sent = withParameters(statement.parameters) { values, lengths, formats in
                    PQsendQueryPrepared(handle, name, Int32(statement.parameters.count), values, lengths, formats, 0)
                }
            } else {
                sent = withParameters(statement.parameters) { values, lengths, formats in
                    PQsendQueryParams(handle, statement.sql, Int32(statement.parameters.count), nil, values, lengths, formats, 0)
                }
            }
            guard sent == 1 else { throw connectionError("send", sql: statement.sql) }
        }
        statementsSent += statements.count
        return preparing
    }

    /// The results of `statements`, sent by ``sendPipelined(_:prepared:)`` (which prepared
    /// `preparing`), once the server has them (after a sync point or a flush request).
    func readPipelined(_ statements: [(sql: String, parameters: [PostgresParameter])], preparing: [Preparing]) throws(PostgresError) -> [PipelineResult] {
        var results: [PipelineResult] = []
        results.reserveCapacity(statements.count)
        var next = preparing.startIndex
        for (position, statement) in statements.enumerated() {
            // A `Parse` the server refused is that statement's failure (its execution is then
            // skipped); one skipped after an earlier failure leaves the SQL to prepare next time.
            var refused: PostgresError?
            if next < preparing.endIndex, preparing[next].before == position {
                switch try readResult(of: statement.sql) {
                case .done: preparedNames[statement.sql] = preparing[next].name
                case .failed(let error): refused = error
                case .skipped: break
                }
                next += 1
            }
            let result = try readResult(of: statement.sql)
            results.append(refused.map { .failed($0) } ?? result)
        }
        return results
    }

    /// Sends `sql` (no parameters) without waiting for its result, which ``finishCommand(_:)``
    /// reads: the audit writer's `COMMIT`, waited for on another thread.
    func send(_ sql: String) throws(PostgresError) {
        statementsSent += 1
        guard PQsendQuery(handle, sql) == 1 else { throw connectionError("send", sql: sql) }
    }

    /// Waits for the result of the statement ``send(_:)`` sent; throws when it failed (without
    /// a SQLSTATE when the connection was lost meanwhile).
    func finishCommand(_ sql: String) throws(PostgresError) {
        var failure: PostgresError?
        while let raw = PQgetResult(handle) {
            if failure == nil, let refused = PostgresResult(raw).failure {
                failure = PostgresError(operation: "execute", sqlState: refused.sqlState, message: refused.message, sql: sql)
            }
        }
        if let failure { throw failure }
        guard isHealthy else { throw connectionError("read", sql: sql) }
    }

    /// The result of the next statement, and the NULL that ends it.
    private func readResult(of sql: String) throws(PostgresError) -> PipelineResult {
        guard let raw = PQgetResult(handle) else { throw connectionError("read", sql: sql) }
        let result = PostgresResult(raw)
        let outcome: PipelineResult
        if result.status == PGRES_PIPELINE_ABORTED {
            outcome = .skipped
        } else if let failure = result.failure {
            let error = PostgresError(operation: "execute", sqlState: failure.sqlState, message: failure.message, sql: sql)
            // A failure without a server's SQLSTATE is the connection's, not the statement's.
            if error.connectionLost || !isHealthy { throw error }
            outcome = .failed(error)
        } else {
            outcome = .done(affectedRows: result.affectedRows, returned: (0..<result.rowCount).map { result.value($0, 0) })
        }
        // Each statement's results end with a NULL before the next statement's begin.
        if let extra = PQgetResult(handle) {
            PQclear(extra)
            throw PostgresError(operation: "read", message: "a pipelined statement returned more than one result", sql: sql)
        }
        return outcome
    }

    /// Reads the sync point's result: the implicit transaction has ended (committed, or rolled
    /// back after a failure).
    func readSyncPoint() throws(PostgresError) {
        guard let raw = PQgetResult(handle) else { throw connectionError("read sync point") }
        let result = PostgresResult(raw)
        guard result.status == PGRES_PIPELINE_SYNC else {
            throw PostgresError(operation: "read sync point", message: result.failure?.message ?? "expected the pipeline's sync point")
        }
    }

    /// libpq's current error for a call on the connection itself.
    func connectionError(_ operation: String, sql: String? = nil) -> PostgresError {
        PostgresError(operation: operation, message: String(cString: PQerrorMessage(handle)), sql: sql)
    }
}
