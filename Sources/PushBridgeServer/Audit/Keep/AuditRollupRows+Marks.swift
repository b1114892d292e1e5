/// The recount behind the rollup marks (``AuditRollupMarkSchema``): an instance's counter rows
/// made again from the log, from the minute of its earliest mark on.
extension AuditRollupRows {
    /// Recounts instance `instance`'s counter rows from its earliest mark's minute on (both
    /// levels: the minutes from the log, their hours from the minutes) and deletes its marks;
    /// returns the mark's received time, nil when it had none (nothing done). Run inside the
    /// caller's transaction: start-up recovery and a takeover, before the rows left `pending`
    /// are moved to `unknown`.
    @discardableResult
    static func recountMarked(_ database: any AuditSQL, instance: String) throws -> Int64? {
        guard let from = try database.select(AuditRollupMarkSchema.earliestSQL, [.text(instance)]).first?.first?.integerValue else { return nil }
        try recount(database, instance: instance, from: from)
        return from
    }

    /// Makes instance `instance`'s counter rows from the minute of received time `from` on
    /// again from the log, and deletes its marks: what the writer runs after a commit of a
    /// batch whose counters it carried failed (``AuditWriter/settleRollupRecount(_:)``).
    static func recount(_ database: any AuditSQL, instance: String, from: Int64) throws {
        try fill(database, instances: [instance], sinceMinute: max(0, from) / 60_000)
        try database.change(AuditRollupMarkSchema.deleteSQL, [.text(instance)])
    }

    /// SQLite: every instance's counter rows made again from the log from the minute of the
    /// earliest mark of any instance on, and every mark deleted; returns the mark's received
    /// time, nil when there was none (nothing done). The file has one writer, whose fold also
    /// moves counter rows of other instances (a scheduled start completed by a later process
    /// than the one that began it, under another default instance name), so its recount is
    /// not limited to its own name. Run inside the caller's transaction (start-up recovery).
    @discardableResult
    static func recountAllMarked(_ database: any AuditSQL) throws -> Int64? {
        guard let from = try database.select(AuditRollupMarkSchema.earliestOfAllSQL, []).first?.first?.integerValue else { return nil }
        try recountAll(database, from: from)
        return from
    }

    /// SQLite: every instance's counter rows from the minute of received time `from` on made
    /// again from the log, and every mark deleted: what the writer runs after a commit or sync
    /// of a batch whose counters it carried failed.
    static func recountAll(_ database: any AuditSQL, from: Int64) throws {
        try fill(database, sinceMinute: max(0, from) / 60_000)
        try database.change(AuditRollupMarkSchema.deleteAllSQL, [])
    }
}
