/// `audit copy` of the `requests` table into the PostgreSQL audit as a log
/// (``PostgresAuditLogSchema``): `requests` is a view there, so a batch's rows are split into
/// their intents (`request_log`) and, for a row not `pending`, their completions
/// (`request_outcomes`), with the upsert rules of every other table (``AuditCopy/upsert(_:rows:types:)``).
/// Whether an intent was inserted is asked of the statement's snapshot (a partitioned table
/// has no `xmax` to return): the row was not there before.
extension AuditCopy {
    /// The multi-row upsert of `rows` request rows (``AuditCopyTable/requests``' columns):
    /// an intent the database lacks is inserted (unless it has the request id at another
    /// time: that row is another's, and left alone); one it has, written by the same instance, is
    /// updated when a value differs, and so is its completion (a row copied while `pending`
    /// gets the completion the file has since). Returns, per row written, whether its intent
    /// was inserted (`t`) or the row updated (`f`).
    func upsertRequestLog(rows: Int, types: [String: String]) -> String {
        let columns = AuditCopyTable.requests.columns
        let tuples = (0..<rows).map { row in
            "(" + columns.enumerated().map { index, column in "$\(row * columns.count + index + 1)::\(types[column] ?? "text")" }.joined(separator: ", ") + ")"
        }
        let intent = AuditRequestColumn.intent.map(\.name), completion = AuditRequestColumn.completion.map(\.name)
        let intentChanging = intent.filter { $0 != "request_id" && $0 != "received_at" }
        let instance = AuditCopyTable.instanceColumn
        let same = "p.request_id = c.request_id AND p.received_at = c.received_at"
        return """
            WITH copied (\(columns.joined(separator: ", "))) AS (VALUES \(tuples.joined(separator: ", "))),
            log AS (
                INSERT INTO request_log (\(intent.joined(separator: ", "))) SELECT \(intent.map { "c.\($0)" }.joined(separator: ", ")) FROM copied c
                WHERE NOT EXISTS (SELECT 1 FROM request_log p WHERE p.request_id = c.request_id AND p.received_at <> c.received_at)
                ON CONFLICT (request_id, received_at) DO UPDATE SET \(intentChanging.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", "))
                WHERE request_log.\(instance) IS NOT DISTINCT FROM EXCLUDED.\(instance)
                    AND (\(intentChanging.map { "request_log.\($0)" }.joined(separator: ", "))) IS DISTINCT FROM (\(intentChanging.map { "EXCLUDED.\($0)" }.joined(separator: ", ")))
                RETURNING request_id, received_at,
                    NOT EXISTS (SELECT 1 FROM request_log p WHERE p.request_id = request_log.request_id AND p.received_at = request_log.received_at) AS inserted
            ),
            outcome AS (
                INSERT INTO request_outcomes (request_id, received_at, \(completion.joined(separator: ", ")))
                SELECT c.request_id, c.received_at, \(completion.map { "c.\($0)" }.joined(separator: ", ")) FROM copied c
                WHERE c.outcome <> 'pending' AND (EXISTS (SELECT 1 FROM log p WHERE \(same))
                    OR EXISTS (SELECT 1 FROM request_log p WHERE \(same) AND p.\(instance) IS NOT DISTINCT FROM c.\(instance)))
                ON CONFLICT (request_id, received_at) DO UPDATE SET \(completion.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", "))
                WHERE (\(completion.map { "request_outcomes.\($0)" }.joined(separator: ", "))) IS DISTINCT FROM (\(completion.map { "EXCLUDED.\($0)" }.joined(separator: ", ")))
                RETURNING request_id, received_at
            )
            SELECT coalesce(l.inserted, false) FROM copied c
                LEFT JOIN log l ON l.request_id = c.request_id AND l.received_at = c.received_at
                LEFT JOIN outcome o ON o.request_id = c.request_id AND o.received_at = c.received_at
            WHERE l.request_id IS NOT NULL OR o.request_id IS NOT NULL
            """
    }

    /// Gives each day of the copied requests its partition (`pushbridge_audit_day`): copied
    /// rows land in the DEFAULT partitions, which retention can only empty row by row, and the
    /// writer makes only the coming days' partitions.
    func partitionCopiedDays(_ target: PostgresConnection) throws {
        try target.execute("SELECT pushbridge_audit_day(d) FROM (SELECT DISTINCT received_at / 86400000 AS d FROM request_log_default) AS days")
    }
}
