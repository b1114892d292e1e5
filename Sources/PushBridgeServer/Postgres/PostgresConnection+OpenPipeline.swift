import CLibPQ

/// A pipeline's implicit transaction held open over two round trips, without `BEGIN` or
/// `COMMIT`: the first round trip's statements go with a flush request instead of a sync
/// point, so their results come back while the transaction, and the row locks it took, stays
/// open; the second's go with the sync point, which commits the transaction, or rolls it back
/// when a statement of either failed. Two statements fewer than an explicit transaction, for a
/// caller that reads before it writes (the shared pacer's batch).
extension PostgresConnection {
    /// Opens the implicit transaction with `statements` (sent as ``pipeline(_:prepared:)``
    /// sends them) and returns their results, leaving the connection in pipeline mode for
    /// ``closePipeline(_:prepared:)``. When one of them failed or was skipped, the transaction
    /// is ended here (rolled back at its sync point) and the connection leaves pipeline mode.
    /// Throws, with the connection to be dropped, when the connection fails.
    func openPipeline(_ statements: [(sql: String, parameters: [String?])], prepared: Bool) throws(PostgresError) -> [PipelineResult] {
        let statements = statements.map { ($0.sql, $0.parameters.map(PostgresParameter.init)) }
        guard PQenterPipelineMode(handle) == 1 else { throw connectionError("enter pipeline mode") }
        let preparing = try sendPipelined(statements, prepared: prepared)
        guard PQsendFlushRequest(handle) == 1, PQflush(handle) == 0 else { throw connectionError("flush") }
        let results = try readPipelined(statements, preparing: preparing)
        let allRan = results.allSatisfy { if case .done = $0 { true } else { false } }
        if !allRan { _ = try syncPipeline([], prepared: prepared) }
        return results
    }

    /// Sends `statements` after ``openPipeline(_:prepared:)``'s, then the sync point that ends
    /// the transaction, and returns their results once it has ended: committed when every
    /// statement of both ran, rolled back otherwise. The connection leaves pipeline mode.
    func closePipeline(_ statements: [(sql: String, parameters: [String?])], prepared: Bool) throws(PostgresError) -> [PipelineResult] {
        try closePipeline(statements.map { ($0.sql, $0.parameters.map(PostgresParameter.init)) }, prepared: prepared)
    }

    /// ``closePipeline(_:prepared:)`` with parameters each sent as text or in its type's binary
    /// format (``PostgresParameter``).
    func closePipeline(_ statements: [(sql: String, parameters: [PostgresParameter])], prepared: Bool) throws(PostgresError) -> [PipelineResult] {
        try syncPipeline(statements, prepared: prepared)
    }
}
