import Foundation
import PushBridgeServer

/// `pushbridge audit list|show|prune`: reads an audit file (a running proxy may be writing
/// it) and prints human-readable tables. Never prints a secret: the audit holds none.
enum AuditCommand {
    /// `--db` of every audit subcommand.
    static let db = Option.db("the audit database (default \(ProxyConfiguration.defaultAuditDatabasePath))")

    /// The declaration.
    static let command = Command(
        name: "audit", summary: "read and prune the audit",
        subcommands: [
            Command(name: "list", summary: "list audited requests, newest first",
                    options: [
                        db, Option(name: "limit", kind: .number(minimum: 1), help: "at most N rows (default 50)"),
                        Option(name: "outcome", kind: .text(placeholder: "X"), help: "only outcome X (forwarded, rejected, …)"),
                        .app(), .since, .until, .format([.text, .json]),
                    ],
                    notes: timeNote, run: { list($0) }),
            Command(name: "show", summary: "show one request: its row, findings, attempts and (redacted) bodies",
                    options: [db, .format([.text, .json])], positionals: [.init(name: "ID", help: "the request id (X-PushBridge-Request-Id)")],
                    notes: "Exit status: 0 shown, 1 no such request or the audit cannot be read, 2 usage.", run: { show($0) }),
            Command(name: "prune", summary: "delete requests older than N days (rows still pending or scheduled are kept)",
                    options: [Option(name: "older-than-days", kind: .number(minimum: 0), help: "the age in days", required: true), db],
                    run: { prune($0) }),
            Command(name: "copy", summary: "copy an SQLite audit into a PostgreSQL one; rows already there are skipped, so it can run again",
                    options: [
                        Option(name: "from", kind: .text(placeholder: "FILE"), help: "the SQLite audit file", required: true),
                        Option(name: "to", kind: .text(placeholder: "URI"),
                               help: "the postgresql:// URI (no password in it: PGPASSWORD, PGPASSFILE or ~/.pgpass)", required: true),
                    ],
                    run: { copy($0) }),
        ])

    static func database(_ arguments: ParsedArguments) -> String { arguments["db"] ?? ProxyConfiguration.defaultAuditDatabasePath }

    static func list(_ arguments: ParsedArguments) -> Int32 {
        do {
            let rows = try AuditReader(path: database(arguments)).list(
                limit: arguments.number("limit") ?? 50, since: arguments.time("since"), until: arguments.time("until"),
                outcome: arguments["outcome"], app: arguments["app"])
            writeOutput(arguments.format == .json ? AuditJSON.list(rows) : AuditTable.list(rows))
            return 0
        } catch {
            return arguments.fail("\(error)")
        }
    }

    static func show(_ arguments: ParsedArguments) -> Int32 {
        let id = arguments.positional[0]
        do {
            guard let record = try AuditReader(path: database(arguments)).show(requestId: id) else {
                return arguments.fail("no request \(id) in \(database(arguments))")
            }
            writeOutput(arguments.format == .json ? AuditJSON.show(record) : AuditTable.show(record))
            return 0
        } catch {
            return arguments.fail("\(error)")
        }
    }

    static func prune(_ arguments: ParsedArguments) -> Int32 {
        let days = arguments.number("older-than-days") ?? 0
        do {
            let deleted = try AuditReader(path: database(arguments)).prune(olderThanDays: days)
            print("pruned \(deleted) request\(deleted == 1 ? "" : "s") older than \(days) day\(days == 1 ? "" : "s") from \(database(arguments))")
            return 0
        } catch {
            return arguments.fail("\(error)")
        }
    }

    static func copy(_ arguments: ParsedArguments) -> Int32 {
        let onTerminal = isatty(STDERR_FILENO) == 1
        var progress: ReplayProgress?
        do {
            let counts = try AuditCopy.run(from: arguments["from"] ?? "", to: arguments["to"] ?? "") { done, total in
                if progress == nil { progress = ReplayProgress(total: total, enabled: onTerminal, unit: "rows") }
                progress?.update(done)
            }
            progress?.finish()
            for count in counts { print("\(count.table): \(count.source) in the file, \(count.inserted) copied") }
            return 0
        } catch {
            progress?.finish()
            return arguments.fail("\(error)")
        }
    }
}
