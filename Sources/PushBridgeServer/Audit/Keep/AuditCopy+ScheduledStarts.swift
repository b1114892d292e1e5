import Foundation

/// What `pushbridge audit copy` did with the starts of the SQLite scheduler file.
public struct ScheduledStartMove: Sendable, Equatable {
    /// The scheduler file read.
    public var file: String
    /// Starts the file holds, in any state.
    public var read = 0
    /// `pending` starts moved: PostgreSQL now holds them `pending`, and one instance sends
    /// each at its time.
    public var pending = 0
    /// `sending` starts (their process stopped mid-send, or is sending now) moved as
    /// `pending`: sent again with their own idempotency key, which OpenPush answers as a
    /// replay if the first send reached it.
    public var resent = 0
    /// Sent, failed and cancelled starts copied as history (their bodies are already gone).
    public var finished = 0
    /// Starts an earlier copy moved as `pending` that the file has finished since (its
    /// instance sent or cancelled them): PostgreSQL's still-pending copy takes the file's
    /// final state, so it is not sent again.
    public var updated = 0

    /// Starts already in PostgreSQL (moved before, or claimed there since): left alone.
    public var unchanged: Int { read - pending - resent - finished - updated }

    /// One line for people.
    public var description: String {
        "scheduled starts from \(file): \(read) read, \(pending) pending moved (PostgreSQL's instances send each once at its time), "
            + "\(resent) left sending moved as pending (sent again with their idempotency key), \(finished) finished copied as history, "
            + "\(updated) finished since the last copy, \(unchanged) already present"
    }
}

extension AuditCopy {
    /// Why the starts were not moved: there is no scheduler file at the path looked at.
    public struct NoSchedulerFile: Error, Sendable, CustomStringConvertible {
        /// The path looked at.
        public var path: String
        /// For people: what was not moved and how to move it.
        public var description: String {
            "no scheduler file at \(path): no scheduled start was moved (if that instance's delivery.scheduler_db named another file, run again with --scheduler FILE)"
        }
    }

    /// The scheduler file this copy moves starts from: the one given, else the file beside
    /// the audit (``ProxyConfiguration/schedulerDatabasePath(forAudit:)``, the default of
    /// `delivery.scheduler_db`).
    public var schedulerFile: String { scheduler ?? ProxyConfiguration.schedulerDatabasePath(forAudit: path) }

    /// Moves the scheduler file's starts into PostgreSQL's `scheduled_starts`, where every
    /// instance on the database sees them (`pushbridge scheduled list --db URI`) and one of
    /// them sends each at its time. The file is read in one snapshot and never changed.
    ///
    /// - `pending` starts are inserted `pending`; `sending` ones as `pending` too (see
    ///   ``ScheduledStartMove/resent``); finished ones as they are, without a body.
    /// - `created_by` is the `instance_name` the audit file records for the start's request,
    ///   else the copy's label (``instance``).
    /// - Idempotent: a start PostgreSQL has is left alone, except one still `pending` there
    ///   that the file has finished since: it takes the file's final state (and loses its
    ///   body), so a start the old instance sent after the first copy is not sent again.
    ///
    /// Throws ``NoSchedulerFile`` when the file is missing (nothing is created).
    public func moveScheduledStarts() throws -> ScheduledStartMove {
        let file = schedulerFile
        guard FileManager.default.fileExists(atPath: file) else { throw NoSchedulerFile(path: file) }
        var options = SQLiteOpenOptions()
        options.create = false
        let source = try SQLiteDatabase(path: file, options: options)
        try source.execute("PRAGMA busy_timeout = 5000")
        let audit = try AuditDatabase.openForReading(path: ExistingFile.require(path, what: "audit file"), busyTimeout: .seconds(5))
        let target = try PostgresConnection(uri.text, connectTimeout: .seconds(5))
        try PostgresSchema.migrator.migrate(target)
        var move = ScheduledStartMove(file: file)
        let rows = try source.transaction(.deferred) {
            try source.rows("""
                SELECT id, request_id, ordinal, app_name, target_app, send_at, send_date, timezone, state, activity_type, body,
                       notification_id, upstream_status, error, created_at, finished_at
                FROM scheduled_starts ORDER BY send_at, id
                """)
        }
        for row in rows {
            let values = try row.enumerated().map { index, value in try Self.text(value, at: "scheduled_starts column \(index + 1) of start \(row[0].textValue ?? "?")") }
            guard let state = values[8] else { continue }
            let requestId = values[1] ?? ""
            let creator = try audit.rows("SELECT instance_name FROM requests WHERE request_id = ?", [.text(requestId)]).first?.first?.textValue ?? instance
            let movedState = state == "sending" ? "pending" : state
            switch try ScheduledStartStore.move(values + [movedState, creator], on: target) {
            case true?:
                if state == "pending" { move.pending += 1 } else if state == "sending" { move.resent += 1 } else { move.finished += 1 }
            case false?: move.updated += 1
            default: break
            }
            move.read += 1
        }
        return move
    }
}
