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
            let store = try ScheduledStartStore(path: ExistingFile.require(db, what: "scheduler file"), recover: false)
            switch (positional.first, positional.count) {
            case ("list", 1):
                let rows = try store.list(states: all ? [] : [.pending, .sending])
                print(table(rows), terminator: "", to: &output)
                return 0
            case ("cancel", 2):
                let id = positional[1]
                let lifecycle = ScheduledStartLifecycle(store: store, audit: nil)
                guard try lifecycle.cancel(id, auditDatabase: auditDB, now: Int64(Date().timeIntervalSince1970 * 1000)) else {
                    print("pushbridge scheduled: \(id) is not pending (already sent, cancelled, or unknown)", to: &errors)
                    return 1
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
