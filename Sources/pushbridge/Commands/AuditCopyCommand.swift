import Foundation
import PushBridgeServer

/// `pushbridge audit copy --from FILE --to URI`: copies an SQLite audit into a PostgreSQL
/// audit (see ``AuditCopy``). A bar on standard error while it runs, only when standard
/// error is a terminal; one summary line on standard output at the end.
enum AuditCopyCommand {
    /// The declaration.
    static let command = Command(
        name: "copy", summary: "copy an SQLite audit (requests, findings, attempts, comparisons) into a PostgreSQL audit",
        options: [
            Option(name: "from", kind: .text(placeholder: "FILE"), help: "the SQLite audit file to copy (read, never changed)", required: true),
            Option(name: "to", kind: .text(placeholder: "URI"), help: "the PostgreSQL audit, postgresql://user@host:port/dbname (no password in it)", required: true),
            Option(name: "instance", kind: .text(placeholder: "NAME"),
                   help: "instance_name of copied rows whose file records none (default copied:<file name>)"),
        ],
        notes: """
            Idempotent: run it again and rows already copied are left alone; rows whose values \
            changed in the file since (requests that were pending) are updated; nothing is duplicated. \
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
        let copy = AuditCopy(from: from, to: uri, instance: arguments["instance"])
        let onTerminal = isatty(STDERR_FILENO) == 1
        var progress: ReplayProgress?
        do {
            let counts = try copy.run { step in
                if progress == nil { progress = ReplayProgress(total: step.total, enabled: onTerminal, unit: "rows") }
                progress?.update(step.done)
            }
            progress?.finish()
            print("copied \(from) to \(uri.redacted) as \(copy.instance): " + counts.map(\.description).joined(separator: "; "))
            return 0
        } catch {
            progress?.finish()
            return arguments.fail("\(error)")
        }
    }
}
