import PushBridgeServer

/// `pushbridge audit list|show|prune|copy`: reads an audit file (a running proxy may be writing
/// it) and prints human-readable tables. Never prints a secret: the audit holds none.
enum AuditCommand {
    /// `--db` of every audit subcommand.
    static let db = Option.db("the audit database (default \(ProxyConfiguration.defaultAuditDatabasePath))")

    /// The declaration.
    static let command = Command(
        name: "audit", summary: "read, prune and copy the audit",
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
            AuditCopyCommand.command,
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
}
