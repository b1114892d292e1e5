/// SQLite audit migration 23, "the log's minutes" (issue 30, bytes written per request): the
/// log loses its index on time (`request_log_time`, one b-tree insert per intent, ~2 frames a
/// commit) and gains `request_log_minutes`, one row per minute (`received_at / 60000`) with the
/// lowest and highest `request_log` id received in it. The rowid grows with time, but
/// `received_at` is not strictly monotone in it (a request is queued when it is written, not
/// when it came in), so a time range is read as the id range its minutes cover
/// (``idBounds(_:since:until:)``) and filtered by `received_at` inside it: exactly the rows the
/// index found, reading the log's rowid b-tree from the range's first row.
///
/// Kept by the writer inside a batch's transaction (``AuditLogMinutes``): a minute's row when
/// its first intent is written, and widened for a late row (an intent of an earlier minute than
/// the newest); the newest minute's highest id only when a later minute starts, the writer
/// closes or the next writer opens (so a batch inside the newest minute writes nothing here).
/// Its later rows all come after every other row, so a range's upper end is read as the
/// highest id of its minutes or the lowest id of a later minute less one, whichever is higher
/// (``upperBound(_:)``): every committed intent is covered. Kept by the `requests` view's
/// insert and update triggers for a tool's rows (an operator's script, `bench/prune.sh`). A
/// range only ever widens (a wider range is still exact: `received_at` filters inside it);
/// pruning deletes a minute's row once none of its rows is left (``deleteEmptySQL``; the
/// writer reads its newest minute again after that or another connection's change).
///
/// A reader never migrates: on a file no writer of this build has opened, the table is absent
/// (``exist(in:)``) and every reader keeps its time conditions alone, which the index there
/// still answers.
enum AuditLogMinutesSchema {
    /// The migration's number and name in `pushbridge_migrations`.
    static let sqliteNumber = 23
    static let name = "the log's minutes"

    /// The table.
    static let table = "request_log_minutes"

    /// The whole migration: the table, filled from the log (through the time index, still
    /// there), the index dropped, the view's triggers made again to keep the table.
    static var sql: String {
        """
        CREATE TABLE \(table) (
            minute INTEGER PRIMARY KEY,
            first_id INTEGER NOT NULL,
            last_id INTEGER NOT NULL
        );
        INSERT INTO \(table) (minute, first_id, last_id) SELECT received_at / 60000, min(id), max(id) FROM request_log GROUP BY 1;
        DROP INDEX request_log_time;
        DROP TRIGGER requests_insert;
        DROP TRIGGER requests_update;
        DROP TRIGGER requests_delete;

        """ + AuditOutcomeKeySchema.triggers(notingIntent: noteIntentSQL)
    }

    /// Whether `database` has the table (a file a tool opens may not be migrated yet).
    static func exist(in database: any AuditSQL) throws -> Bool {
        try database.hasTable(table)
    }

    /// Widens `minute`'s range to hold the ids bound as `first_id` and `last_id` (`?1`–`?3`).
    static let upsertSQL = """
        INSERT INTO \(table) (minute, first_id, last_id) VALUES (?, ?, ?)
        ON CONFLICT (minute) DO UPDATE SET first_id = min(first_id, excluded.first_id), last_id = max(last_id, excluded.last_id)
        """

    /// Deletes the minutes through `?1` that no log row is received in any more (pruning's last
    /// statement, so the table shrinks with the log): each minute's id range is read from its
    /// first id up to the first row of that minute still there (a pruned minute's rows are gone
    /// from the b-tree, so the range holds only the rows still kept).
    static let deleteEmptySQL = """
        DELETE FROM \(table) WHERE minute <= ?1 AND NOT EXISTS (SELECT 1 FROM request_log l
            WHERE l.id BETWEEN \(table).first_id AND \(upperBound("\(table).minute")) AND l.received_at / 60000 = \(table).minute)
        """

    /// The highest log id a row received in a minute through `minute` (an SQL expression) can
    /// have: the highest id of those minutes' rows, or the lowest id of a later minute less one
    /// if higher (the newest minute's row holds its highest id only once it is closed, and
    /// its rows written before a later minute started are exactly those below that minute's
    /// first; every row written after is a late row, which widens its own minute's row); no
    /// later minute: no bound. No minute through `minute`: NULL (no row).
    static func upperBound(_ minute: String) -> String {
        "max((SELECT max(last_id) FROM \(table) WHERE minute <= \(minute)), "
            + "coalesce((SELECT min(first_id) FROM \(table) WHERE minute > \(minute)) - 1, \(Int64.max)))"
    }

    /// A trigger's statement noting the `request_log` row `l` that `intent` finds.
    static func noteIntentSQL(_ intent: String) -> String {
        """
        INSERT INTO \(table) (minute, first_id, last_id) SELECT l.received_at / 60000, l.id, l.id FROM request_log l WHERE \(intent)
                ON CONFLICT (minute) DO UPDATE SET first_id = min(first_id, excluded.first_id), last_id = max(last_id, excluded.last_id);
        """
    }

    /// The conditions on a log id `column` (`id` of `requests` or `request_log`) that hold for
    /// every row received in `[since, until)` (either open; none: no condition): at least the
    /// lowest id of a minute from `since`'s on, at most ``upperBound(_:)`` of `until`'s minute. The bounds are integers written into the text (the readers' conditions
    /// carry no marks of their own); a range with no minute compares with NULL: no row.
    static func idBounds(_ column: String, since: Int64?, until: Int64?) -> [String] {
        var conditions: [String] = []
        if let since { conditions.append("\(column) >= (SELECT min(first_id) FROM \(table) WHERE minute >= \(since) / 60000)") }
        if let until { conditions.append("\(column) <= \(upperBound("(\(until) - 1) / 60000"))") }
        return conditions
    }
}
