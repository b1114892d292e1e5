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

    /// SQLite audit migration 10, PostgreSQL audit migration 7: the record keyed as OpenPush
    /// keys an activity, (OpenPush app, activity id), with its source app, its start's state
    /// and the apps whose in-flight rows the cap forgot. The table is rebuilt (its key
    /// changes); a row written before keeps its source app's key (``legacyKey(app:)``, its
    /// start `accepted`) and is read under it beside the OpenPush key (``recordSQL``), so old
    /// audits keep routing without a fill step at start-up.
    static func keyedByOpenPushApp(sqlite: Bool) -> String {
        """
        CREATE TABLE activities_keyed (
            openpush_app TEXT NOT NULL,
            activity_id TEXT NOT NULL,
            app TEXT NOT NULL,
            dialect TEXT NOT NULL,
            holder TEXT NOT NULL CHECK (holder IN ('openpush', 'legacy', 'both')),
            start_state TEXT NOT NULL CHECK (start_state IN ('in_flight', 'accepted', 'refused')),
            started_at BIGINT NOT NULL,
            last_update_at BIGINT,
            ended_at BIGINT,
            cohort_key TEXT,
            request_id TEXT NOT NULL,
            PRIMARY KEY (openpush_app, activity_id)
        )\(sqlite ? " WITHOUT ROWID" : "");
        INSERT INTO activities_keyed (openpush_app, activity_id, app, dialect, holder, start_state, started_at, last_update_at, ended_at, cohort_key, request_id)
            SELECT '\(legacyKeyPrefix)' || app, activity_id, app, dialect, holder, 'accepted', started_at, last_update_at, ended_at, cohort_key, request_id
            FROM activities;
        DROP TABLE activities;
        ALTER TABLE activities_keyed RENAME TO activities;
        CREATE INDEX activities_in_flight ON activities (app, holder, started_at) WHERE ended_at IS NULL;
        CREATE INDEX activities_by_start ON activities (started_at);
        CREATE INDEX activities_by_app ON activities (app, started_at);
        CREATE INDEX activities_of_app ON activities (app, activity_id);
        CREATE TABLE activities_forgotten (
            app TEXT PRIMARY KEY,
            in_flight_until BIGINT NOT NULL,
            forgotten BIGINT NOT NULL
        );
        """
    }

    /// What a key's OpenPush app is for a row written before migration 10 (or a change that
    /// names no OpenPush app): this prefix and the source app's name. No OpenPush app id has it.
    static let legacyKeyPrefix = "source-app:"

    /// The stored `openpush_app` of a record or change: its OpenPush app, or its source app's legacy key.
    static func key(openPushApp: String?, app: String) -> String { openPushApp ?? legacyKeyPrefix + app }

    // MARK: Writes, carried by an audit begin or completion

    /// The statements that write `changes` in the transaction of request `requestId`'s row.
    ///
    /// Each takes effect only if that row exists (`EXISTS` on `requests.request_id`, the same
    /// condition the completion's own `UPDATE` has), so a completion of an unknown request
    /// leaves no ledger change behind even where the engine does not undo it (a PostgreSQL
    /// pipeline, in which such a completion fails alone without an abort).
    static func statements(for changes: [ActivityLedgerChange], requestId: String) -> [AuditStatement] {
        changes.map { change in
            switch change {
            case .started(let record) where record.startState == .refused:
                return AuditStatement(name: "ledger start refused", sql: refusedSQL,
                                      values: [.text(key(openPushApp: record.openPushApp, app: record.app)), .text(record.activityId), .text(record.requestId), .text(requestId)],
                                      requestId: nil)
            case .started(let record), .starting(let record), .learned(let record):
                var values: [SQLiteValue] = [
                    .text(key(openPushApp: record.openPushApp, app: record.app)), .text(record.activityId), .text(record.app), .text(record.dialect.rawValue),
                    .text(record.holder.rawValue), .text(record.startState.rawValue),
                    .integer(record.startedAt), record.lastUpdateAt.map(SQLiteValue.integer) ?? .null,
                    record.endedAt.map(SQLiteValue.integer) ?? .null, record.cohortKey.map(SQLiteValue.text) ?? .null,
                    .text(record.requestId), .text(requestId),
                ]
                values.append(.integer(record.startedAt - ActivityRecord.lifetimeMs))
                return AuditStatement(name: "ledger start", sql: placeSQL, values: values, requestId: nil)
            case .updated(let app, let activityId, let at, let openPushApp):
                return AuditStatement(name: "ledger update", sql: updateSQL,
                                      values: [.integer(at), .integer(at), .text(key(openPushApp: openPushApp, app: app)), .text(activityId), .text(app), .text(requestId)],
                                      requestId: nil)
            case .ended(let app, let activityId, let at, let openPushApp):
                return AuditStatement(name: "ledger end", sql: endSQL,
                                      values: [.integer(at), .text(key(openPushApp: openPushApp, app: app)), .text(activityId), .text(app), .text(requestId)],
                                      requestId: nil)
            }
        }
    }

    /// A start (in flight, accepted) or a learned record: inserts the activity, or replaces
    /// every column of the record with the same key when that record is this request's own
    /// (its start in flight), or places nothing any more (refused, ended, or started at or
    /// before the last value, past its lifetime). A live record of another request, whatever
    /// its source app, is never overwritten: a start's placement stands, and a fallback's
    /// answer only fills a key nobody holds. The casts give PostgreSQL the parameters' types,
    /// which a `SELECT` list does not.
    static let placeSQL = """
        INSERT INTO activities (openpush_app, activity_id, app, dialect, holder, start_state, started_at, last_update_at, ended_at, cohort_key, request_id)
        SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT),
            CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT)
        WHERE EXISTS (SELECT 1 FROM requests WHERE request_id = ?)
        ON CONFLICT (openpush_app, activity_id) DO UPDATE SET app = excluded.app, dialect = excluded.dialect, holder = excluded.holder,
            start_state = excluded.start_state, started_at = excluded.started_at, last_update_at = excluded.last_update_at,
            ended_at = excluded.ended_at, cohort_key = excluded.cohort_key, request_id = excluded.request_id
        WHERE activities.request_id = excluded.request_id OR activities.start_state = 'refused' OR activities.ended_at IS NOT NULL
            OR activities.started_at <= CAST(? AS BIGINT)
        """

    /// A start no side accepted: the record its request began, while still in flight, becomes refused.
    static let refusedSQL = """
        UPDATE activities SET start_state = 'refused'
        WHERE openpush_app = ? AND activity_id = ? AND request_id = ? AND start_state = 'in_flight'
            AND EXISTS (SELECT 1 FROM requests WHERE request_id = ?)
        """

    /// An update: the latest update time of a known activity of that source app (an earlier
    /// one committed later does not move it back); an unknown activity changes nothing.
    static let updateSQL = """
        UPDATE activities SET last_update_at = CASE WHEN last_update_at IS NULL OR last_update_at < CAST(? AS BIGINT)
            THEN CAST(? AS BIGINT) ELSE last_update_at END
        WHERE openpush_app = ? AND activity_id = ? AND app = ? AND EXISTS (SELECT 1 FROM requests WHERE request_id = ?)
        """

    /// An end: the first end of a known activity of that source app stays its end time; an
    /// unknown activity changes nothing.
    static let endSQL = """
        UPDATE activities SET ended_at = COALESCE(ended_at, CAST(? AS BIGINT))
        WHERE openpush_app = ? AND activity_id = ? AND app = ? AND EXISTS (SELECT 1 FROM requests WHERE request_id = ?)
        """

    // MARK: Reads

    /// The columns every read returns, in the order ``record(_:)`` reads them.
    static let columns = "app, activity_id, dialect, holder, started_at, last_update_at, ended_at, cohort_key, request_id, openpush_app, start_state"

    /// One activity by id (`?1`) under either of two keys (`?2`, `?3`: its OpenPush app and
    /// its source app's legacy key), started after `?4` (so still within its lifetime); the
    /// first key's record when both exist (`?5` = `?2`, bound by
    /// ``ActivityLedgerGatheredSQL/statement(for:)`` and not read again).
    ///
    /// Two primary-key lookups and no temporary table: the first key's record (`f`, a left
    /// join, so its absence is a row too), then the record under that key if it was found,
    /// else under the second key (`a`). SQLite runs the values' subquery as a co-routine.
    /// Written as `openpush_app IN (?, ?) … ORDER BY CASE …` before: SQLite then built an
    /// ephemeral b-tree for the `IN` list and a sorter for the `ORDER BY`, on every request
    /// that reads the ledger (about 9 allocations of a OneSignal start; `docs/benchmarks.md`,
    /// "Allocations per request, eighth pass"). `ActivityRecordReadPlanTests` holds both.
    static let recordSQL = """
        SELECT \(columnsOfRecordLookup) FROM (SELECT CAST(? AS TEXT) AS wanted_id, CAST(? AS TEXT) AS first_key,
            CAST(? AS TEXT) AS second_key, CAST(? AS BIGINT) AS cutoff, CAST(? AS TEXT) AS first_key_again) AS q
        LEFT JOIN activities f ON f.openpush_app = q.first_key AND f.activity_id = q.wanted_id AND f.started_at > q.cutoff
        JOIN activities a ON a.openpush_app = COALESCE(f.openpush_app, q.second_key) AND a.activity_id = q.wanted_id AND a.started_at > q.cutoff
        """

    /// ``columns`` of the record ``recordSQL`` found (its table's alias `a`).
    private static let columnsOfRecordLookup = columns.split(separator: ", ").map { "a." + $0 }.joined(separator: ", ")

    /// One activity of source app `?1` by id (`?2`), in whichever OpenPush app, started after
    /// `?3`; the latest started when several. Reads `activities_of_app`.
    static let recordOfAppSQL = """
        SELECT \(columns) FROM activities WHERE app = ? AND activity_id = ? AND started_at > ? ORDER BY started_at DESC LIMIT 1
        """

    /// Activities not ended, not refused and started after a cutoff, newest first; `app` and
    /// `holders` narrow it when given. Values: the cutoff, then the app, then the holders, then the limit.
    static func inFlightSQL(app: Bool, holders: Int) -> String {
        var conditions = ["ended_at IS NULL", "started_at > ?", "start_state <> 'refused'"]
        if app { conditions.append("app = ?") }
        if holders > 0 { conditions.append("holder IN (\(Array(repeating: "?", count: holders).joined(separator: ", ")))") }
        return "SELECT \(columns) FROM activities WHERE \(conditions.joined(separator: " AND ")) ORDER BY started_at DESC, app, activity_id LIMIT ?"
    }

    /// Per source app and holder, the activities not ended, not refused and started after
    /// `?1`: how many, and the latest start. A start still in flight counts where it was sent.
    static let countsSQL = """
        SELECT app, holder, count(*), max(started_at) FROM activities WHERE ended_at IS NULL AND started_at > ? AND start_state <> 'refused'
        GROUP BY app, holder ORDER BY app, holder
        """

    /// The apps whose in-flight rows the cap forgot that could still be in flight after `?1`:
    /// the app, until when, and how many were forgotten.
    static let forgottenSQL = "SELECT app, in_flight_until, forgotten FROM activities_forgotten WHERE in_flight_until > ? ORDER BY app"

    /// A row of ``columns`` as a record; nil for a row this build cannot read (an unknown
    /// dialect, holder or state).
    static func record(_ row: [SQLiteValue]) -> ActivityRecord? {
        guard row.count == 11, let app = row[0].textValue, let activityId = row[1].textValue,
              let dialect = row[2].textValue.flatMap(DialectName.init(rawValue:)),
              let holder = row[3].textValue.flatMap(ActivityHolder.init(rawValue:)), let startedAt = row[4].integerValue,
              let key = row[9].textValue, let state = row[10].textValue.flatMap(ActivityStartState.init(rawValue:)) else { return nil }
        return ActivityRecord(app: app, activityId: activityId, dialect: dialect, holder: holder, startedAt: startedAt,
                              lastUpdateAt: row[5].integerValue, endedAt: row[6].integerValue, cohortKey: row[7].textValue,
                              requestId: row[8].textValue ?? "", openPushApp: key.hasPrefix(legacyKeyPrefix) ? nil : key, startState: state)
    }

    // MARK: Upkeep

    /// Every activity's row.
    static let countAllSQL = "SELECT count(*) FROM activities"

    /// The columns an upkeep candidate is read with, in the order ``delete(_:startedBy:)`` and
    /// ``forget(app:inFlightUntil:count:)`` read them: key, id, start, source app, whether in flight.
    static let candidateColumns = "openpush_app, activity_id, started_at, app, CASE WHEN ended_at IS NULL AND start_state <> 'refused' THEN 1 ELSE 0 END"

    /// The oldest activities started at or before `?1` (past their lifetime), at most `?2`.
    /// Reads `activities_by_start`.
    static let expiredSQL = "SELECT \(candidateColumns) FROM activities WHERE started_at <= ? ORDER BY started_at LIMIT ?"

    /// The source apps with more than `?1` rows, and how many they have.
    static let overCapAppsSQL = "SELECT app, count(*) FROM activities GROUP BY app HAVING count(*) > ? ORDER BY app"

    /// The oldest activities of source app `?1`, at most `?2` (the cap's candidates). Reads `activities_by_app`.
    static let oldestOfAppSQL = "SELECT \(candidateColumns) FROM activities WHERE app = ? ORDER BY started_at LIMIT ?"

    /// Deletes the activities `keys` (OpenPush key and id pairs) still started at or before
    /// `startedBy` (a start of the same id since then stays): one statement, for one background operation.
    static func delete(_ keys: [(openPushApp: String, activityId: String)], startedBy: Int64) -> AuditStatement {
        let pairs = Array(repeating: "(?, ?)", count: keys.count).joined(separator: ", ")
        let values = keys.flatMap { [SQLiteValue.text($0.openPushApp), .text($0.activityId)] } + [.integer(startedBy)]
        return AuditStatement(name: "ledger prune", sql: "DELETE FROM activities WHERE (openpush_app, activity_id) IN (VALUES \(pairs)) AND started_at <= ?",
                              values: values, requestId: nil)
    }

    /// Remembers that the cap forgot `count` in-flight rows of `app`, the last reachable until
    /// `inFlightUntil`: the later of that and what was remembered stays.
    static func forget(app: String, inFlightUntil: Int64, count: Int) -> AuditStatement {
        AuditStatement(name: "ledger forgotten", sql: """
            INSERT INTO activities_forgotten (app, in_flight_until, forgotten) VALUES (?, ?, ?)
            ON CONFLICT (app) DO UPDATE SET forgotten = activities_forgotten.forgotten + excluded.forgotten,
                in_flight_until = CASE WHEN activities_forgotten.in_flight_until < excluded.in_flight_until
                    THEN excluded.in_flight_until ELSE activities_forgotten.in_flight_until END
            """, values: [.text(app), .integer(inFlightUntil), .integer(Int64(count))], requestId: nil)
    }
}
