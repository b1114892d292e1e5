/// The PostgreSQL writer's statements for the audit as a log (``PostgresAuditLogSchema``,
/// migration 9): a request's intent is one `request_log` row, its completion one
/// `request_outcomes` row, both plain inserts; nothing on the request path updates a row. The
/// intent carries the request's findings (``AuditFindingsInlineSchema``, migration 14).
///
/// A request row (``AuditRowEncoding/requestRow(_:_:bodyLimit:instance:)``, every
/// ``AuditRequestColumn`` in order) is split here: its intent columns go to `request_log`, and
/// when it is written whole (`record`: answered without upstream, outcome not `pending`) its
/// completion goes to `request_outcomes` with the row's own `received_at`, no lookup.
///
/// A completion finds its intent by request id (`JOIN request_log`), which gives it the
/// intent's `received_at`; a completion whose intent is not there inserts nothing and is
/// reported ``AuditError/unknownRequest(_:)`` alone. A completion written twice (a handler's
/// late completion after the server answered) replaces the first, as the `UPDATE` did.
enum AuditPostgresLogSQL {
    private static let all = AuditRequestColumn.allCases

    /// Where each intent column sits in a request row.
    static let intentPositions = AuditRequestColumn.intent.compactMap { all.firstIndex(of: $0) }
    /// Where each completion column sits in a request row.
    static let completionPositions = AuditRequestColumn.completion.compactMap { all.firstIndex(of: $0) }
    private static let requestIdPosition = all.firstIndex(of: .requestId) ?? 0
    private static let outcomePosition = all.firstIndex(of: .outcome) ?? 0
    private static let receivedAtPosition = all.firstIndex(of: .receivedAt) ?? 0

    /// The intent's values of a request row, in ``AuditRequestColumn/intent``'s order, and
    /// last its findings (`findings`: ``AuditRowEncoding/findingRows(_:instance:)``) as the
    /// intent's list (``AuditFindingsInlineSchema``, PostgreSQL migration 14).
    static func intent(of row: [SQLiteValue], findings: [[SQLiteValue]]) -> [SQLiteValue] {
        intentPositions.map { row[$0] } + [AuditRowEncoding.findingList(findings)]
    }

    /// The columns an intent's insert writes: ``AuditRequestColumn/intent`` and the findings' list.
    static let intentColumns = AuditRequestColumn.intent.map(\.name) + [AuditFindingsInlineSchema.column]

    /// The completion a request row written whole carries, as a `request_outcomes` row
    /// (request id, received time, the completion columns); nil for a row still `pending`
    /// (a `begin`'s intent).
    static func outcome(of row: [SQLiteValue]) -> (requestId: String, values: [SQLiteValue])? {
        guard row.count == all.count, case .text(let outcome) = row[outcomePosition], outcome != AuditOutcome.pending.rawValue,
              case .text(let requestId) = row[requestIdPosition] else { return nil }
        return (requestId, [row[requestIdPosition], row[receivedAtPosition]] + completionPositions.map { row[$0] })
    }

    /// `INSERT INTO request_outcomes … VALUES`: the completion of a request written whole, whose
    /// received time is known (no lookup of its intent, written just before it).
    static let insertRecordOutcomeSQL = "INSERT INTO request_outcomes (request_id, received_at, "
        + AuditRequestColumn.completion.map(\.name).joined(separator: ", ") + ") VALUES ("
        + (1...(AuditRequestColumn.completion.count + 2)).map { "$\($0)" }.joined(separator: ", ") + ") " + replaceOutcome

    /// The request id and received time of a request row still `pending` (an intent whose
    /// completion comes later); nil for a row written whole.
    static func openIntent(of row: [SQLiteValue]) -> (requestId: String, receivedAt: Int64)? {
        guard row.count == all.count, case .text(AuditOutcome.pending.rawValue) = row[outcomePosition],
              case .text(let requestId) = row[requestIdPosition], case .integer(let receivedAt) = row[receivedAtPosition] else { return nil }
        return (requestId, receivedAt)
    }

    /// `INSERT INTO request_log (…) VALUES ($1, …)`: one intent with its findings (``intentColumns``).
    static let insertIntentSQL = "INSERT INTO request_log (\(intentColumns.joined(separator: ", "))) VALUES ("
        + (1...intentColumns.count).map { "$\($0)" }.joined(separator: ", ") + ")"

    /// Runs one operation on the PostgreSQL writer's connection inside its open transaction,
    /// statement by statement (a batch no pipeline carries): a request row is its intent, with
    /// its findings inline, and, written whole, its outcome; anything else as
    /// ``AuditStatements/apply(_:on:)`` runs it.
    static func apply(_ work: AuditOperation.Work, on connection: PostgresConnection) throws {
        guard case .insert(let row, let findings, let ledger) = work else { return try AuditStatements.apply(work, on: connection) }
        try connection.change(insertIntentSQL, intent(of: row, findings: findings))
        if let (_, values) = outcome(of: row) { try connection.change(insertRecordOutcomeSQL, values) }
        for statement in ledger { try statement.run(on: connection) }
    }

    /// What a completion does when its request already has one: replaces it.
    static let replaceOutcome = "ON CONFLICT (request_id, received_at) DO UPDATE SET "
        + AuditRequestColumn.completion.map { "\($0.name) = excluded.\($0.name)" }.joined(separator: ", ")

    /// One completion (the completion columns `$1…`, the request id last), with its intent's
    /// `received_at`: inserts no row when the request has no intent.
    static let insertOutcomeSQL = insertOutcome(knownTime: false)
    /// The same with the intent's `received_at` the writer knows (the last value): the lookup
    /// reads that day's partition only, not every day's.
    static let insertOutcomeAtSQL = insertOutcome(knownTime: true)

    private static func insertOutcome(knownTime: Bool) -> String {
        let completion = AuditRequestColumn.completion
        let values = completion.enumerated().map { "CAST($\($0.offset + 1) AS \($0.element.kind.type(sqlite: false)))" }.joined(separator: ", ")
        let id = "$\(completion.count + 1)", time = "$\(completion.count + 2)"
        return "INSERT INTO request_outcomes (request_id, received_at, \(completion.map(\.name).joined(separator: ", "))) "
            + "SELECT l.request_id, l.received_at, \(values) FROM request_log l WHERE l.request_id = CAST(\(id) AS TEXT) "
            + (knownTime ? "AND l.received_at = CAST(\(time) AS BIGINT) " : "") + replaceOutcome
    }

    /// What the writer's transaction sets for itself, right after its `BEGIN` (`SET LOCAL`,
    /// in one statement): its statements over the partitioned tables cost more to plan than to
    /// run, so each prepared statement is planned once per connection, for any values
    /// (`plan_cache_mode`; the plan prunes partitions as it runs), and that plan must look
    /// rows up by index whatever the tables held when it was made (a day's partition is empty
    /// when its first statement is planned; a plan that scans it, or hashes it whole, would be
    /// kept while it grows). Readers sharing the pool's connections are not affected: the
    /// settings end with the transaction.
    static let writerSettingsSQL = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true), "
        + "set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)"

    /// A named statement's SQL as the log's writer runs it: the activity ledger's check that
    /// its request exists reads the intents (`request_log`, an index lookup) rather than the
    /// `requests` view and its join.
    static func adapted(_ sql: String) -> String {
        sql.replacingOccurrences(of: "EXISTS (SELECT 1 FROM requests WHERE request_id = ?)", with: "EXISTS (SELECT 1 FROM request_log WHERE request_id = ?)")
    }
}
