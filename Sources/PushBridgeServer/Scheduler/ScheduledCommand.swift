import Foundation

/// `pushbridge scheduled list|cancel`: reads the scheduler file (a running proxy may be using
/// it) and lists or cancels pending starts. Prints ids, apps, times and states, never a
/// request body (it holds device ids).
public enum ScheduledCommand {
    /// The usage text.
    public static let usage = """
        usage: pushbridge scheduled list [--db FILE] [--all]
               pushbridge scheduled cancel ID [--db FILE] [--audit-db FILE]
        """

    /// Runs the command with `arguments` (after `scheduled`); 0 on success, 1 when the work
    /// failed or the start was no longer pending, 2 on a usage error.
    public static func run(arguments: [String]) -> Int32 {
        var output = StandardStream.output
        var errors = StandardStream.error
        var positional: [String] = [], db = "pushbridge-audit-scheduled.sqlite", auditDB: String?, all = false
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--db" where i + 1 < arguments.count: db = arguments[i + 1]; i += 1
            case "--audit-db" where i + 1 < arguments.count: auditDB = arguments[i + 1]; i += 1
            case "--all": all = true
            case let a where a.hasPrefix("-"):
                print("pushbridge scheduled: unknown option \(a)\n\(usage)", to: &errors)
                return 2
            case let a: positional.append(a)
            }
            i += 1
        }
        do {
            let store = try ScheduledStartStore(path: db, recover: false)
            switch (positional.first, positional.count) {
            case ("list", 1):
                let rows = try store.list(states: all ? [] : [.pending, .sending])
                print(table(rows), terminator: "", to: &output)
                return 0
            case ("cancel", 2):
                let id = positional[1]
                guard try store.cancel(id, now: Int64(Date().timeIntervalSince1970 * 1000)) else {
                    print("pushbridge scheduled: \(id) is not pending (already sent, cancelled, or unknown)", to: &errors)
                    return 1
                }
                if let auditDB, let start = try store.list().first(where: { $0.id == id }) {
                    try markCancelled(start, siblings: try store.starts(ofRequest: start.requestId), auditDB: auditDB)
                }
                print("cancelled \(id)", to: &output)
                return 0
            default:
                print(usage, to: &errors)
                return 2
            }
        } catch {
            print("pushbridge scheduled: \(error)", to: &errors)
            return 1
        }
    }

    /// Marks the start cancelled in the audit's `scheduled_sends` and, once none of the
    /// request's starts (`siblings`, the scheduler's record) is pending or sending, completes
    /// the request's row from that record: `rejected` when all were cancelled, else `sent` or
    /// `failed` as the others went (their own completion waited for this one). Writes on its
    /// own connection, never through an ``AuditStore`` (opening one would mark a running
    /// proxy's rows in flight `unknown`); a row no longer `scheduled` is left as it is. When
    /// this is not run (no `--audit-db`) or fails, the next proxy start settles the row
    /// (``StartScheduler/reconcileAudit()``).
    static func markCancelled(_ start: ScheduledStart, siblings: [ScheduledStart], auditDB: String) throws {
        let db = try SQLiteDatabase(path: auditDB)
        try db.execute("PRAGMA busy_timeout = 5000")
        try db.transaction {
            try db.execute("UPDATE scheduled_sends SET state = 'cancelled' WHERE request_id = ? AND ordinal = ?", [.text(start.requestId), .integer(Int64(start.ordinal))])
            let mirror = try db.rows("SELECT ordinal, attempts FROM scheduled_sends WHERE request_id = ?", [.text(start.requestId)])
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            guard var completion = ScheduledStart.auditCompletion(of: siblings, attempts: { ordinal in
                AuditAttempt.parse(mirror.first { $0[0].integerValue == Int64(ordinal) }?[1].textValue)
            }, now: now) else { return }
            if completion.outcome == .rejected, siblings.allSatisfy({ $0.error == nil }) {
                completion.errorMessage = "cancelled before its send time with pushbridge scheduled cancel"
            }
            let v = AuditRowEncoding.completionValues(completion, outcome: completion.outcome, bodyLimit: AuditStoreConfiguration().bodyLimit)
            try db.execute("""
                UPDATE requests SET finished_at = ?, upstream_status = ?, upstream_body = ?, upstream_latency_ms = ?, attempts = ?, outcome = ?, error_message = ?
                WHERE request_id = ? AND outcome = 'scheduled'
                """, [v[0], v[1], v[2], v[3], v[4], v[7], v[8], .text(start.requestId)])
        }
    }

    static func table(_ rows: [ScheduledStart]) -> String {
        var out = "ID                           STATE      SEND AT (UTC)         APP            REQUEST\n"
        let f = ISO8601DateFormatter()
        for r in rows {
            let when = f.string(from: Date(timeIntervalSince1970: TimeInterval(r.sendAt) / 1000))
            out += [r.id.padding(toLength: 28, withPad: " ", startingAt: 0), r.state.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0),
                    when.padding(toLength: 21, withPad: " ", startingAt: 0), r.appName.padding(toLength: 14, withPad: " ", startingAt: 0), r.requestId].joined(separator: " ") + "\n"
        }
        return out + "\(rows.count) scheduled start(s)\n"
    }
}
