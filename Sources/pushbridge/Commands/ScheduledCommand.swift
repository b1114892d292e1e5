import Foundation
import PushBridgeCore
import PushBridgeServer

/// `pushbridge scheduled list|cancel`: reads the scheduler file or the shared PostgreSQL
/// table (a running proxy may be using either) and lists or cancels pending starts. Prints ids, apps, times and states, never a
/// request body (it holds device ids).
enum ScheduledCommand {
    /// The scheduler file when `--db` names none (the default audit path's scheduler file).
    static let defaultDatabase = "pushbridge-audit-scheduled.sqlite"
    /// `--db` of both subcommands.
    static let db = Option.db("the scheduler database (default \(defaultDatabase); the configuration's delivery.scheduler_db), or the shared PostgreSQL audit_db URI")

    /// The declaration.
    static let command = Command(
        name: "scheduled", summary: "list or cancel scheduled starts",
        subcommands: [
            Command(name: "list", summary: "list pending and sending starts (ids, apps, times, states; never a body)",
                    options: [db, Option(name: "all", kind: .flag, help: "also list sent, failed and cancelled starts"), .format([.text, .json])],
                    run: { await list($0) }),
            Command(name: "cancel", summary: "cancel a start that is still pending",
                    options: [db, Option(name: "audit-db", kind: .text(placeholder: "FILE|URI"), help: "also mark the request cancelled in this audit (a file, or the shared PostgreSQL audit_db URI)")],
                    positionals: [.init(name: "ID", help: "the scheduled start's id (pushbridge scheduled list)")],
                    notes: "Exit status: 0 cancelled, 1 not pending (already sent, cancelled, or unknown) or the work failed, 2 usage.",
                    run: { await cancel($0) }),
        ])

    /// The scheduler file, or the shared PostgreSQL database when `--db` is a URI.
    static func store(_ arguments: ParsedArguments) throws -> ScheduledStartStore {
        let db = arguments["db"] ?? defaultDatabase
        if PostgresURI.isPostgres(db) { return try ScheduledStartStore(postgres: PostgresURI(db).text, instance: "cli") }
        return try ScheduledStartStore(path: ExistingFile.require(db, what: "scheduler file"), instance: "cli", recover: false)
    }

    static func list(_ arguments: ParsedArguments) async -> Int32 {
        do {
            let rows = try await store(arguments).list(states: arguments.flag("all") ? [] : [.pending, .sending])
            writeOutput(arguments.format == .json ? json(rows) : table(rows))
            return 0
        } catch {
            return arguments.fail("\(error)")
        }
    }

    static func cancel(_ arguments: ParsedArguments) async -> Int32 {
        let id = arguments.positional[0]
        do {
            let lifecycle = ScheduledStartLifecycle(store: try store(arguments), audit: nil)
            guard try await lifecycle.cancel(id, auditDatabase: arguments["audit-db"], now: AuditClock.nowMilliseconds()) else {
                return arguments.fail("\(id) is not pending (already sent, cancelled, or unknown)")
            }
            print("cancelled \(id)")
            return 0
        } catch {
            return arguments.fail("\(error)")
        }
    }

    /// The text table; stored values (ids, app names) through ``TerminalText``.
    static func table(_ rows: [ScheduledStart]) -> String {
        let t = { (value: String) in TerminalText.escape(value) }
        var out = "ID                           STATE      SEND AT (UTC)         APP            REQUEST\n"
        let f = ISO8601DateFormatter()
        for r in rows {
            let when = f.string(from: Date(timeIntervalSince1970: TimeInterval(r.sendAt) / 1000))
            out += [t(r.id).padding(toLength: 28, withPad: " ", startingAt: 0), r.state.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0),
                    when.padding(toLength: 21, withPad: " ", startingAt: 0), t(r.appName).padding(toLength: 14, withPad: " ", startingAt: 0), t(r.requestId)].joined(separator: " ") + "\n"
        }
        return out + "\(rows.count) scheduled start(s)\n"
    }

    /// `{"starts": [...]}`: the table's columns plus the outcome of finished starts; never a body.
    static func json(_ rows: [ScheduledStart]) -> String {
        let starts: [JSONValue] = rows.map { r in
            .object([
                "id": .string(r.id), "state": .string(r.state.rawValue), "send_at": .int(r.sendAt), "app": .string(r.appName),
                "request_id": .string(r.requestId), "notification_id": r.notificationId.map(JSONValue.string) ?? .null,
                "upstream_status": r.upstreamStatus.map { .int(Int64($0)) } ?? .null, "error": r.error.map(JSONValue.string) ?? .null,
                "finished_at": r.finishedAt.map(JSONValue.int) ?? .null,
            ])
        }
        return TerminalText.json(JSONWriter.pretty(.object(["starts": .array(starts)]))) + "\n"
    }
}
