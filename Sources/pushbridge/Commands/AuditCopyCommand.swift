import Foundation
import PushBridgeServer

/// `pushbridge audit copy --from FILE --to URI`: copies an SQLite audit into a PostgreSQL
/// audit (see ``AuditCopy``) and moves the scheduler file's starts there. A bar on standard
/// error while it runs, only when standard error is a terminal; a summary on standard output
/// at the end: what each table copied, under which `instance_name` the rows are stored, and
/// what became of the scheduled starts (or why none was moved).
enum AuditCopyCommand {
    /// The declaration.
    static let command = Command(
        name: "copy", summary: "copy an SQLite audit (requests, findings, attempts, comparisons) into a PostgreSQL audit",
        options: [
            Option(name: "from", kind: .text(placeholder: "FILE"), help: "the SQLite audit file to copy (read, never changed)", required: true),
            Option(name: "to", kind: .text(placeholder: "URI"), help: "the PostgreSQL audit, postgresql://user@host:port/dbname (no password in it)", required: true),
            Option(name: "instance", kind: .text(placeholder: "NAME"),
                   help: "instance_name of copied rows whose file records none (default copied:<file name>)"),
            Option(name: "scheduler", kind: .text(placeholder: "FILE"),
                   help: "the scheduler file whose starts move too (default: the one beside --from, <name>-scheduled.sqlite)"),
        ],
        notes: """
            Idempotent: run it again and rows already copied are left alone; rows whose values \
            changed in the file since (requests that were pending) are updated; nothing is duplicated. \
            Rows keep the instance_name their file records; only rows without one get --instance. \
            Scheduled starts still to be sent move to PostgreSQL's scheduled_starts (one instance sends each \
            at its time, with its idempotency key); stop the SQLite instance first, or run the copy again \
            once it stopped, so that a start it sends meanwhile is recorded as sent. \
            The password comes from PGPASSWORD, PGPASSFILE or ~/.pgpass.
            Exit status: 0 copied, 1 the file, the database or a row could not be read or written, 2 usage \
            (a URI that is not PostgreSQL or that carries a password).
            """,
        run: { run($0) })

    static func run(_ arguments: ParsedArguments) -> Int32 {
        let from = arguments["from"] ?? "", to = arguments["to"] ?? ""
        guard PostgresURI.isPostgres(to) else { return arguments.fail("--to takes a postgresql:// URI, not '\(to)'", status: 2) }
        let uri: PostgresURI
        do { uri = try PostgresURI(to) } catch { return arguments.fail("--to: \(error.message)", status: 2) }
        if let instance = arguments["instance"], instance.isEmpty || instance.count > 200 || instance.contains(where: \.isNewline) {
            return arguments.fail("--instance must be 1 to 200 characters on one line", status: 2)
        }
        let copy = AuditCopy(from: from, to: uri, instance: arguments["instance"], scheduler: arguments["scheduler"])
        let onTerminal = isatty(STDERR_FILENO) == 1
        var progress: ReplayProgress?
        do {
            let counts = try copy.run { step in
                if progress == nil { progress = ReplayProgress(total: step.total, enabled: onTerminal, unit: "rows") }
                progress?.update(step.done)
            }
            progress?.finish()
            print("copied \(from) to \(uri.redacted): " + counts.map(\.description).joined(separator: "; "))
            print(instanceSummary(counts, label: copy.instance))
            do {
                print(try copy.moveScheduledStarts().description)
            } catch let missing as AuditCopy.NoSchedulerFile where arguments["scheduler"] == nil {
                print(missing.description)
            }
            return 0
        } catch {
            progress?.finish()
            return arguments.fail("\(error)")
        }
    }

    /// `instance_name: 10 rows kept the file's (a 8, b 2); 3 rows recorded none, stored as copied:x.sqlite`.
    static func instanceSummary(_ counts: [AuditCopyCounts], label: String) -> String {
        let named = counts.reduce(into: [String: Int]()) { all, table in all.merge(table.instanceNames, uniquingKeysWith: +) }
        let kept = named.values.reduce(0, +), labelled = counts.reduce(0) { $0 + $1.labelled }
        let names = named.sorted { $0.key < $1.key }.map { "\(visible($0.key)) \($0.value)" }.joined(separator: ", ")
        return "instance_name: \(kept) rows kept the one their file records\(names.isEmpty ? "" : " (\(names))"); \(labelled) rows recorded none, stored as \(visible(label))"
    }

    /// `text` with control characters shown as `\u{…}`: names read from a file are data.
    static func visible(_ text: String) -> String {
        text.unicodeScalars.map { $0.properties.generalCategory == .control ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
    }
}
