import PushBridgeCore

/// Every statement of the activity ledger, written once with `?` marks for both engines (the
/// audit's ``AuditSQL`` numbering): the `activities` table, the writes an audit completion
/// carries, the reads of ``ActivityLedger`` and the deletes of ``ActivityLedgerUpkeep``.
enum ActivityLedgerSQL {
    /// The table and its indexes (SQLite audit migration 7, PostgreSQL audit migration 4; the
    /// integer columns are `BIGINT`, which SQLite reads as `INTEGER`; on SQLite the table is
    /// `WITHOUT ROWID`, so a look-up by app and id reads one b-tree).
    /// `activities_in_flight` serves the in-flight listing of one app and the counts per app
    /// and holder; `activities_by_start` the listing over every app, pruning and the cap.
    static func schema(sqlite: Bool) -> String {
        """
        CREATE TABLE activities (
            app TEXT NOT NULL,
            activity_id TEXT NOT NULL,
            dialect TEXT NOT NULL,
            holder TEXT NOT NULL CHECK (holder IN ('openpush', 'legacy', 'both')),
            started_at BIGINT NOT NULL,
            last_update_at BIGINT,
            ended_at BIGINT,
            cohort_key TEXT,
            request_id TEXT NOT NULL,
            PRIMARY KEY (app, activity_id)
        )\(sqlite ? " WITHOUT ROWID" : "");
        CREATE INDEX activities_in_flight ON activities (app, holder, started_at) WHERE ended_at IS NULL;
        CREATE INDEX activities_by_start ON activities (started_at);
        """
    }

    // MARK: Writes, carried by an audit completion

    /// The statements that write `changes` in the transaction of request `requestId`'s row.
    ///
    /// Each takes effect only if that row exists (`EXISTS` on `requests.request_id`, the same
    /// condition the completion's own `UPDATE` has), so a completion of an unknown request
    /// leaves no ledger change behind even where the engine does not undo it (a PostgreSQL
    /// pipeline, in which such a completion fails alone without an abort).
    static func statements(for changes: [ActivityLedgerChange], requestId: String) -> [AuditStatement] {
        changes.map { change in
            switch change {
            case .started(let record):
                let values: [SQLiteValue] = [
                    .text(record.app), .text(record.activityId), .text(record.dialect.rawValue), .text(record.holder.rawValue),
                    .integer(record.startedAt), record.lastUpdateAt.map(SQLiteValue.integer) ?? .null,
                    record.endedAt.map(SQLiteValue.integer) ?? .null, record.cohortKey.map(SQLiteValue.text) ?? .null,
                    .text(record.requestId), .text(requestId),
                ]
                return AuditStatement(name: "ledger start", sql: startSQL, values: values, requestId: nil)
            case .updated(let app, let activityId, let at):
                return AuditStatement(name: "ledger update", sql: updateSQL, values: [.integer(at), .integer(at), .text(app), .text(activityId), .text(requestId)],
                                      requestId: nil)
            case .ended(let app, let activityId, let at):
                return AuditStatement(name: "ledger end", sql: endSQL, values: [.integer(at), .text(app), .text(activityId), .text(requestId)], requestId: nil)
            }
        }
    }

    /// A start: inserts the activity, or replaces every column of the one with the same app
    /// and id (a repeated start of an id starts it afresh). The casts give PostgreSQL the
    /// parameters' types, which a `SELECT` list does not.
    static let startSQL = """
        INSERT INTO activities (app, activity_id, dialect, holder, started_at, last_update_at, ended_at, cohort_key, request_id)
        SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT),
            CAST(? AS TEXT), CAST(? AS TEXT)
        WHERE EXISTS (SELECT 1 FROM requests WHERE request_id = ?)
        ON CONFLICT (app, activity_id) DO UPDATE SET dialect = excluded.dialect, holder = excluded.holder, started_at = excluded.started_at,
            last_update_at = excluded.last_update_at, ended_at = excluded.ended_at, cohort_key = excluded.cohort_key, request_id = excluded.request_id
        """

    /// An update: the latest update time of a known activity (an earlier one committed later
    /// does not move it back); an unknown activity changes nothing.
    static let updateSQL = """
        UPDATE activities SET last_update_at = CASE WHEN last_update_at IS NULL OR last_update_at < CAST(? AS BIGINT)
            THEN CAST(? AS BIGINT) ELSE last_update_at END
        WHERE app = ? AND activity_id = ? AND EXISTS (SELECT 1 FROM requests WHERE request_id = ?)
        """

    /// An end: the first end of a known activity stays its end time; an unknown activity
    /// changes nothing.
    static let endSQL = """
        UPDATE activities SET ended_at = COALESCE(ended_at, CAST(? AS BIGINT))
        WHERE app = ? AND activity_id = ? AND EXISTS (SELECT 1 FROM requests WHERE request_id = ?)
        """

    // MARK: Reads

    /// The columns every read returns, in the order ``record(_:)`` reads them.
    static let columns = "app, activity_id, dialect, holder, started_at, last_update_at, ended_at, cohort_key, request_id"

    /// One activity by app and id (`?1`, `?2`) started after `?3` (so still within its lifetime).
    static let recordSQL = "SELECT \(columns) FROM activities WHERE app = ? AND activity_id = ? AND started_at > ?"

    /// Activities not ended and started after a cutoff, newest first; `app` and `holders`
    /// narrow it when given. Values: the cutoff, then the app, then the holders, then the limit.
    static func inFlightSQL(app: Bool, holders: Int) -> String {
        var conditions = ["ended_at IS NULL", "started_at > ?"]
        if app { conditions.append("app = ?") }
        if holders > 0 { conditions.append("holder IN (\(Array(repeating: "?", count: holders).joined(separator: ", ")))") }
        return "SELECT \(columns) FROM activities WHERE \(conditions.joined(separator: " AND ")) ORDER BY started_at DESC, app, activity_id LIMIT ?"
    }

    /// Per app and holder, the activities not ended and started after `?1`: how many, and the
    /// latest start.
    static let countsSQL = """
        SELECT app, holder, count(*), max(started_at) FROM activities WHERE ended_at IS NULL AND started_at > ?
        GROUP BY app, holder ORDER BY app, holder
        """

    /// A row of ``columns`` as a record; nil for a row this build cannot read (an unknown
    /// dialect or holder).
    static func record(_ row: [SQLiteValue]) -> ActivityRecord? {
        guard row.count == 9, let app = row[0].textValue, let activityId = row[1].textValue,
              let dialect = row[2].textValue.flatMap(DialectName.init(rawValue:)),
              let holder = row[3].textValue.flatMap(ActivityHolder.init(rawValue:)), let startedAt = row[4].integerValue else { return nil }
        return ActivityRecord(app: app, activityId: activityId, dialect: dialect, holder: holder, startedAt: startedAt,
                              lastUpdateAt: row[5].integerValue, endedAt: row[6].integerValue, cohortKey: row[7].textValue,
                              requestId: row[8].textValue ?? "")
    }

    // MARK: Upkeep

    /// Every activity's row.
    static let countAllSQL = "SELECT count(*) FROM activities"

    /// The oldest activities started at or before `?1` (past their lifetime), at most `?2`:
    /// their app, id and start. Reads `activities_by_start`.
    static let expiredSQL = "SELECT app, activity_id, started_at FROM activities WHERE started_at <= ? ORDER BY started_at LIMIT ?"

    /// The oldest activities, at most `?1`: their app, id and start (the cap's candidates).
    static let oldestSQL = "SELECT app, activity_id, started_at FROM activities ORDER BY started_at LIMIT ?"

    /// Deletes the activities `keys` (app and id pairs) still started at or before `startedBy`
    /// (a start of the same id since then stays): one statement, for one background operation.
    static func delete(_ keys: [(app: String, activityId: String)], startedBy: Int64) -> AuditStatement {
        let pairs = Array(repeating: "(?, ?)", count: keys.count).joined(separator: ", ")
        let values = keys.flatMap { [SQLiteValue.text($0.app), .text($0.activityId)] } + [.integer(startedBy)]
        return AuditStatement(name: "ledger prune", sql: "DELETE FROM activities WHERE (app, activity_id) IN (VALUES \(pairs)) AND started_at <= ?",
                              values: values, requestId: nil)
    }
}
