/// `audit copy` of the `findings` table into a PostgreSQL audit whose findings are inline in
/// their intents (``AuditFindingsInlineSchema``, PostgreSQL migration 14): `findings` is a view
/// there, which takes no `ON CONFLICT`, so a batch's findings are merged into their intents'
/// `finding_list` by one statement, with the upsert rules of every other table
/// (``AuditCopy/upsert(_:rows:types:)``), element by element:
///
/// - a finding is placed at its ordinal in the list of its request's intent (same request id
///   and received time), when that intent was written by the same instance as the finding
///   (the copy's label for a file that records none); a finding of a request PostgreSQL lacks,
///   or holds as another instance's row, is left alone;
/// - it is inserted when the list has no element there (or a blanked one), updated when the
///   element differs, and left alone when it is the same: a copy run again writes nothing and
///   counts every finding already present.
extension AuditCopy {
    /// The merge of `rows` findings (``AuditCopyTable/findings``' columns) into their intents'
    /// lists; returns, per finding written, whether it was inserted (`t`) or updated (`f`).
    func upsertFindingList(rows: Int, types: [String: String]) -> String {
        let columns = AuditCopyTable.findings.columns
        let tuples = (0..<rows).map { row in
            "(" + columns.enumerated().map { index, column in "$\(row * columns.count + index + 1)::\(types[column] ?? "text")" }.joined(separator: ", ") + ")"
        }
        let list = AuditFindingsInlineSchema.column, instance = AuditCopyTable.instanceColumn
        let same = "ch.request_id = l.request_id AND ch.received_at = l.received_at"
        return """
            WITH copied (\(columns.joined(separator: ", "))) AS (VALUES \(tuples.joined(separator: ", "))),
            placed AS (
                SELECT c.request_id, c.received_at, c.ordinal, jsonb_build_array(c.field, c.kind, c.severity, c.message) AS element,
                    l.\(list)::jsonb -> c.ordinal::int AS present
                FROM copied c JOIN request_log l ON l.request_id = c.request_id AND l.received_at = c.received_at
                WHERE l.\(instance) IS NOT DISTINCT FROM c.\(instance) AND c.ordinal BETWEEN 0 AND \(Self.ordinalLimit)
            ),
            changed AS (
                SELECT request_id, received_at, ordinal, element, (present IS NULL OR present = 'null'::jsonb) AS inserted
                FROM placed WHERE present IS DISTINCT FROM element
            ),
            merged AS (
                UPDATE request_log l SET \(list) = (
                    SELECT jsonb_agg(coalesce(ch.element, l.\(list)::jsonb -> s.i, 'null'::jsonb) ORDER BY s.i)::text
                    FROM generate_series(0, greatest(coalesce(jsonb_array_length(l.\(list)::jsonb), 0) - 1,
                                                     (SELECT max(ch.ordinal) FROM changed ch WHERE \(same))::int)) AS s(i)
                    LEFT JOIN changed ch ON \(same) AND ch.ordinal = s.i)
                FROM (SELECT DISTINCT request_id, received_at FROM changed) AS t
                WHERE l.request_id = t.request_id AND l.received_at = t.received_at
                RETURNING l.request_id
            )
            SELECT inserted FROM changed
            """
    }

    /// The highest ordinal a copied finding may have (a request has a few dozen at most):
    /// a list is never stretched to an absurd length by one bad row.
    static let ordinalLimit = 10_000
}
