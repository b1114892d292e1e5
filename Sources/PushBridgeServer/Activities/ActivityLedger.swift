import Dispatch
import PushBridgeCore
import Synchronization

/// The activity ledger's read side: which provider holds each Live Activity, read by the
/// placement of every update and end, the in-flight listing and the counts per app and holder.
///
/// It reads the `activities` table of the audit database on connections of its own (an SQLite
/// reader connection, or the audit's PostgreSQL pool), never on a Swift concurrency pool
/// thread: each read runs on one of the ledger's serial dispatch queues and resumes its caller
/// through a continuation; except an SQLite read asked on an event loop (a request's
/// placement) while the connection is free, which runs right there: a WAL read of a few pages
/// from the page cache costs less than handing it to a queue's thread and waking the loop with
/// its answer (two context switches a request, issue 31 item 3). On PostgreSQL the reads of
/// one activity's record, one per request, are gathered (``ActivityReadGather``): the reads
/// of concurrent requests go to the server in one statement, one round trip per batch
/// (issue 30); a lone read is sent at once. There is no cache: every read sees what every instance sharing the
/// database has committed, so a start placed through one instance routes its update through
/// another. The writes ride on audit completions (``AuditCompletion/ledger``), in the same
/// transaction, through the audit writer; nothing here writes.
public final class ActivityLedger: Sendable {
    private let source: (any AuditReadSource)?
    private let lanes: [DispatchQueue]
    private let nextLane = Atomic<Int>(0)
    /// On PostgreSQL, the reads of one activity's record (every request's placement), carried
    /// together by one statement per round trip; nil on SQLite, whose read runs on the loop.
    private let gather: ActivityReadGather?

    /// Reads the ledger of the existing audit at `path`: an SQLite file or a `postgresql://`
    /// URI. An audit no build with the ledger keyed by OpenPush app has migrated yet (SQLite
    /// audit migration 10) has no activities (every read answers empty). Throws ``AuditError/notAnAudit(_:)`` for a database that holds no audit.
    public convenience init(path: String, busyTimeout: Duration = .seconds(5)) throws(AuditError) {
        if PostgresURI.isPostgres(path) {
            let uri: PostgresURI
            do throws(PostgresError) { uri = try PostgresURI(path) } catch { throw .postgres(error) }
            self.init(pool: PostgresPool(uri: uri))
        } else {
            let database = try AuditDatabase.openForReading(path: path, busyTimeout: busyTimeout)
            let hasTable: Bool
            do {
                hasTable = try database.rows("SELECT count(*) FROM pragma_table_info('activities') WHERE name = 'openpush_app'").first?.first?.integerValue == 1
            } catch {
                throw AuditError.wrap(error)
            }
            // Its few queries stay compiled: every placement reads the ledger.
            self.init(source: hasTable ? SQLiteReadSource(database, cachedStatements: 8) : nil, lanes: 1, label: "sqlite")
        }
    }

    /// Reads the ledger of the PostgreSQL audit behind `pool` (migrated by ``AuditStore``), on
    /// two queues, each borrowing a pooled connection per read.
    ///
    /// The reads of one activity's record, which every placement makes, are gathered
    /// (``ActivityReadGather``): the concurrent requests' reads go to the server together.
    convenience init(pool: PostgresPool) {
        self.init(source: pool, lanes: 2, label: "postgres", gathers: true)
    }

    private init(source: (any AuditReadSource)?, lanes: Int, label: String, gathers: Bool = false) {
        self.source = source
        self.lanes = (0..<lanes).map { DispatchQueue(label: "pushbridge-activity-ledger-\(label)-\($0)") }
        gather = gathers ? source.map { source in
            ActivityReadGather(label: "pushbridge-activity-ledger-\(label)-gather") { asks throws(AuditError) -> [ActivityRecord?] in
                let (sql, values) = ActivityLedgerGatheredSQL.statement(asks)
                do {
                    let rows = try source.withSQL { try $0.select(sql, values) }
                    return ActivityLedgerGatheredSQL.records(rows, count: asks.count)
                } catch {
                    throw AuditError.wrap(error)
                }
            }
        } : nil
    }

    /// What the gathered reads have done (reads, the statements that carried them); nil on
    /// SQLite, whose reads are not gathered.
    var gatheredReads: ActivityReadGather.Statistics? { gather?.statistics }

    /// The activity `activityId` of source app `app`, in whichever OpenPush app, wherever it
    /// is held, ended or not; nil when the ledger has never seen it or it is past its lifetime
    /// at `now` (Unix ms).
    public func record(app: String, activityId: String, now: Int64) async throws -> ActivityRecord? {
        let values: [SQLiteValue] = [.text(app.escapingNUL), .text(activityId.escapingNUL), .integer(now - ActivityRecord.lifetimeMs)]
        guard var record = try await read(ActivityLedgerSQL.recordOfAppSQL, values).first.flatMap(ActivityLedgerSQL.record) else { return nil }
        // The caller's own spelling, not the stored one (whose NULs are escaped).
        record.app = app
        record.activityId = activityId
        return record
    }

    /// The record of activity `activityId` in OpenPush app `openPushApp`, whichever source app
    /// it belongs to (its ``ActivityRecord/app``), or else the record `app` wrote before the
    /// ledger was keyed by OpenPush app; nil when neither exists within its lifetime at `now`.
    public func record(openPushApp: String, app: String, activityId: String, now: Int64) async throws -> ActivityRecord? {
        try await record(keys: (openPushApp, ActivityLedgerSQL.key(openPushApp: nil, app: app)), activityId: activityId, now: now)
    }

    /// The record under the first key, else the second.
    private func record(keys: (String, String), activityId: String, now: Int64) async throws -> ActivityRecord? {
        let cutoff = now - ActivityRecord.lifetimeMs
        let ask = ActivityReadGather.Ask(activityId: activityId.escapingNUL, firstKey: keys.0.escapingNUL, secondKey: keys.1.escapingNUL, cutoff: cutoff)
        let found: ActivityRecord?
        if let gather {
            found = try await gather.read(ask)
        } else {
            let (sql, values) = ActivityLedgerGatheredSQL.statement(for: ask)
            found = try await read(sql, values).first.flatMap(ActivityLedgerSQL.record)
        }
        guard var record = found else { return nil }
        // The caller's own spelling, not the stored one (whose NULs are escaped).
        record.activityId = activityId
        return record
    }

    /// The source apps whose in-flight rows the cap (`limits.max_activities`) forgot and that
    /// could still be in flight at `now`: until when, and how many were forgotten.
    public func forgottenInFlight(now: Int64) async throws -> [ForgottenActivities] {
        try await read(ActivityLedgerSQL.forgottenSQL, [.integer(now)]).compactMap { row in
            guard row.count == 3, let app = row[0].textValue, let until = row[1].integerValue, let count = row[2].integerValue else { return nil }
            return ForgottenActivities(app: app, inFlightUntil: until, count: Int(count))
        }
    }

    /// Activities in flight at `now` (not ended, within their lifetime), newest start first, at
    /// most `limit`: of `app` when given, and held by `holder` when given (`.openpush` and
    /// `.legacy` each include the activities held by `.both`).
    public func inFlight(app: String?, holder: ActivityHolder?, now: Int64, limit: Int) async throws -> [ActivityRecord] {
        let holders: [ActivityHolder] = switch holder {
        case nil: []
        case .openpush?: [.openpush, .both]
        case .legacy?: [.legacy, .both]
        case .both?: [.both]
        }
        var values: [SQLiteValue] = [.integer(now - ActivityRecord.lifetimeMs)]
        if let app { values.append(.text(app.escapingNUL)) }
        values += holders.map { .text($0.rawValue) }
        values.append(.integer(Int64(max(0, limit))))
        return try await read(ActivityLedgerSQL.inFlightSQL(app: app != nil, holders: holders.count), values).compactMap(ActivityLedgerSQL.record)
    }

    /// Per app and holder, the activities in flight at `now`: how many, and until when the
    /// latest-started can still be reached; ordered by app, then holder.
    public func inFlightCounts(now: Int64) async throws -> [ActivityCount] {
        try await read(ActivityLedgerSQL.countsSQL, [.integer(now - ActivityRecord.lifetimeMs)]).compactMap { row in
            guard row.count == 4, let app = row[0].textValue, let holder = row[1].textValue.flatMap(ActivityHolder.init(rawValue:)),
                  let count = row[2].integerValue, let latest = row[3].integerValue else { return nil }
            return ActivityCount(app: app, holder: holder, count: Int(count), lastReachableUntil: latest + ActivityRecord.lifetimeMs)
        }
    }

    /// Runs one query on the next queue; resumes with its rows. On an event loop, an SQLite
    /// read runs on the loop when the connection is free (a read in progress, a listing say,
    /// never blocks the loop: the query then goes through the queue); PostgreSQL's round trips
    /// always go through the queues.
    private func read(_ sql: String, _ values: [SQLiteValue]) async throws -> [[SQLiteValue]] {
        guard let source else { return [] }
        if let local = source as? SQLiteReadSource, EventLoop.current != nil {
            do {
                if let rows = try local.withSQLIfAvailable({ try $0.select(sql, values) }) { return rows }
            } catch {
                throw AuditError.wrap(error)
            }
        }
        let lane = lanes[nextLane.add(1, ordering: .relaxed).oldValue % lanes.count]
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[[SQLiteValue]], any Error>) in
            lane.async {
                continuation.resume(with: Result { () throws(AuditError) -> [[SQLiteValue]] in
                    do { return try source.withSQL { try $0.select(sql, values) } } catch { throw AuditError.wrap(error) }
                })
            }
        }
    }
}
