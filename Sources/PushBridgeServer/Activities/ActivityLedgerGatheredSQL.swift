import PushBridgeCore

/// The PostgreSQL statement that answers a batch of ledger reads (``ActivityReadGather``) in
/// one round trip: each read's values travel as one element of four arrays, so the text (and
/// its prepared plan) is the same whatever the batch's size.
enum ActivityLedgerGatheredSQL {
    /// Per ask (`unnest` of the activity ids, first keys, second keys and cutoffs, numbered
    /// from 1), exactly what ``ActivityLedgerSQL/recordSQL`` reads for it alone: the record
    /// under either key started after the cutoff, the first key's when both exist (the
    /// `LATERAL` subquery is that statement, one primary-key lookup per ask). Each row is
    /// ``ActivityLedgerSQL/columns`` and then the ask's number; an ask without a record has no row.
    ///
    /// Each array is a scalar subquery, so the planner cannot count its elements: the plan's
    /// cost is the same whatever the batch's size, and after its first five runs the prepared
    /// statement keeps its generic plan. With the arrays as plain parameters every run was
    /// planned afresh (a custom plan, priced for its batch, always looked cheaper): ~300 µs of
    /// planning per statement, measured by `bench/pg-statements.sh`.
    static let recordsSQL = """
        SELECT a.*, q.ask FROM unnest((SELECT CAST(? AS TEXT[])), (SELECT CAST(? AS TEXT[])), (SELECT CAST(? AS TEXT[])), (SELECT CAST(? AS BIGINT[])))
            WITH ORDINALITY AS q(wanted_id, first_key, second_key, cutoff, ask)
        CROSS JOIN LATERAL (SELECT \(ActivityLedgerSQL.columns) FROM activities
            WHERE activity_id = q.wanted_id AND openpush_app IN (q.first_key, q.second_key) AND started_at > q.cutoff
            ORDER BY CASE WHEN openpush_app = q.first_key THEN 0 ELSE 1 END LIMIT 1) a
        """

    /// The statement that answers `asks` and its values: one ask alone (a lone request's read,
    /// and SQLite's) is ``ActivityLedgerSQL/recordSQL``, the plain primary-key lookup; more go
    /// in ``recordsSQL``.
    static func statement(_ asks: [ActivityReadGather.Ask]) -> (sql: String, values: [SQLiteValue]) {
        guard asks.count == 1, let ask = asks.first else { return (recordsSQL, values(asks)) }
        return statement(for: ask)
    }

    /// The statement that answers one ask alone and its values: ``ActivityLedgerSQL/recordSQL``,
    /// the plain primary-key lookup, with no array built around it.
    static func statement(for ask: ActivityReadGather.Ask) -> (sql: String, values: [SQLiteValue]) {
        (ActivityLedgerSQL.recordSQL, [.text(ask.activityId), .text(ask.firstKey), .text(ask.secondKey), .integer(ask.cutoff), .text(ask.firstKey)])
    }

    /// The four array values of `asks`, in the order of ``recordsSQL``'s marks.
    static func values(_ asks: [ActivityReadGather.Ask]) -> [SQLiteValue] {
        [.text(textArray(asks.map(\.activityId))), .text(textArray(asks.map(\.firstKey))),
         .text(textArray(asks.map(\.secondKey))), .text("{" + asks.map { String($0.cutoff) }.joined(separator: ",") + "}")]
    }

    /// The records of `rows` (from ``statement(_:)``'s statement) by ask, in the order of
    /// `count` asks; nil for an ask without a record or with a row this build cannot read.
    static func records(_ rows: [[SQLiteValue]], count: Int) -> [ActivityRecord?] {
        if count == 1 { return [rows.first.flatMap(ActivityLedgerSQL.record)] }
        var records = [ActivityRecord?](repeating: nil, count: count)
        for row in rows {
            guard let ask = row.last?.integerValue, ask >= 1, ask <= count else { continue }
            records[Int(ask) - 1] = ActivityLedgerSQL.record(Array(row.dropLast()))
        }
        return records
    }

    /// `texts` as a PostgreSQL array literal: every element double-quoted, its `"` and `\`
    /// escaped with a backslash, so any text (commas, braces, spaces, the word NULL) is read
    /// back as itself.
    static func textArray(_ texts: [String]) -> String {
        var literal = "{"
        for (i, text) in texts.enumerated() {
            if i > 0 { literal += "," }
            literal += "\""
            for character in text.unicodeScalars {
                if character == "\"" || character == "\\" { literal += "\\" }
                literal.unicodeScalars.append(character)
            }
            literal += "\""
        }
        return literal + "}"
    }
}
