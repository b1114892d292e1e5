/// The SQLite writer's outcome rows with an answer passed on as it came stored once
/// (``AuditAnswerOnceSchema``): applied to the values it binds, after the rollups were folded
/// from them, never to PostgreSQL's (``AuditStatements/apply(_:on:)``).
extension AuditStatements {
    /// Where the bodies and the outcome are in a `request_outcomes` row (``AuditLogSchema/outcomeColumns``).
    private static let outcomeRow = Positions(AuditLogSchema.outcomeColumns)
    /// Where they are in a completion's values (``completionColumns``, then the request id).
    private static let completionValues = Positions(AuditRequestColumn.completion)

    /// The positions of the upstream body, the response body and the outcome among `columns`.
    private struct Positions {
        let upstream: Int, response: Int, outcome: Int

        init(_ columns: [AuditRequestColumn]) {
            upstream = columns.firstIndex(of: .upstreamBody) ?? 0
            response = columns.firstIndex(of: .responseBody) ?? 0
            outcome = columns.firstIndex(of: .outcome) ?? 0
        }

        /// `values` with the response body stored once when it is the upstream body.
        func storingOnce(_ values: [SQLiteValue]) -> [SQLiteValue] {
            guard values.count > max(upstream, response, outcome),
                  AuditAnswerOnceSchema.storesOnce(upstream: values[upstream], response: values[response], outcome: values[outcome])
            else { return values }
            var stored = values
            stored[response] = AuditAnswerOnceSchema.sameAsUpstream
            return stored
        }
    }

    /// A `request_outcomes` row's values as the SQLite writer binds them.
    static func storingAnswerOnce(outcomeRow values: [SQLiteValue]) -> [SQLiteValue] { outcomeRow.storingOnce(values) }

    /// A completion's values (``finishIntentSQL``'s) as the SQLite writer binds them.
    static func storingAnswerOnce(completion values: [SQLiteValue]) -> [SQLiteValue] { completionValues.storingOnce(values) }
}
