import Foundation

/// `pushbridge audit list|show|prune`: reads an audit file (a running proxy may be writing
/// it) and prints human-readable tables. Never prints a secret: the audit holds none.
public enum AuditCommand {
    /// The default audit file.
    public static let defaultDatabase = "pushbridge-audit.sqlite"

    /// The usage text.
    public static let usage = """
        usage: pushbridge audit list [--db FILE] [--limit N] [--outcome X] [--app A] [--since T]
               pushbridge audit show ID [--db FILE]
               pushbridge audit prune --older-than-days N [--db FILE]
          T is an ISO 8601 date (2026-06-10) or date-time (2026-06-10T12:00:00Z), Unix seconds or Unix milliseconds;
          A is the app's name in the configuration or its source app id
        """

    /// Runs the command with `arguments` (after `audit`); returns the exit status: 0 on
    /// success, 1 when the work failed (or `show` found nothing), 2 on a usage error.
    public static func run(arguments: [String]) async -> Int32 {
        var output = StandardStream.output
        var errors = StandardStream.error
        let options: AuditCommandOptions
        do {
            options = try AuditCommandOptions.parse(arguments)
        } catch {
            print("pushbridge audit: \(error.message)\n\(usage)", to: &errors)
            return 2
        }
        do {
            let reader = try AuditReader(path: options.database)
            switch options.subcommand {
            case .list:
                let rows = try reader.list(limit: options.limit, since: options.since, outcome: options.outcome, app: options.app)
                print(AuditTable.list(rows), terminator: "", to: &output)
            case .show(let id):
                guard let record = try reader.show(requestId: id) else {
                    print("pushbridge audit: no request \(id) in \(options.database)", to: &errors)
                    return 1
                }
                print(AuditTable.show(record), terminator: "", to: &output)
            case .prune(let days):
                let deleted = try reader.prune(olderThanDays: days)
                print("pruned \(deleted) request\(deleted == 1 ? "" : "s") older than \(days) day\(days == 1 ? "" : "s") from \(options.database)", to: &output)
            }
            return 0
        } catch {
            print("pushbridge audit: \(error)", to: &errors)
            return 1
        }
    }
}

/// stdout or stderr as a `TextOutputStream`.
struct StandardStream: TextOutputStream {
    let handle: FileHandle
    static var output: StandardStream { StandardStream(handle: .standardOutput) }
    static var error: StandardStream { StandardStream(handle: .standardError) }
    mutating func write(_ string: String) { handle.write(Data(string.utf8)) }
}
