import Foundation

/// `pushbridge readiness`: the cut-over verdict per app and route. Exit status 0 only when
/// every selected app is ready, so a deploy pipeline can gate a cut-over on it.
public enum ReadinessCommand {
    /// The usage text.
    public static let usage = """
        usage: pushbridge readiness [--db FILE] [--config FILE] [--app A] [--since T] [--until T] [--dialect D] [--route R]
                                    [--format text|md|json|csv|html] [--out FILE]
          --config reads the thresholds (its "readiness" object) and the apps (an app with no traffic is "not enough traffic");
          no secret is needed. A is the app's name in the configuration or its source app id.
          T is an ISO 8601 date (2026-06-10) or date-time (2026-06-10T12:00:00Z), Unix seconds or Unix milliseconds.
          --db defaults to the configuration's audit_db, else pushbridge-audit.sqlite.
          Exit status: 0 every selected app is ready; 1 one is not ready or has not enough traffic; 2 usage; 3 the audit cannot be read.
        """

    /// Runs the command with `arguments` (after `readiness`); see ``usage`` for the exit status.
    public static func run(arguments: [String]) async -> Int32 {
        let options: ReportOptions
        var settings = ReadinessSettings()
        do {
            options = try ReportOptions.parse(arguments, extraFlags: ["db", "config"])
            guard options.positional.isEmpty else { throw ReportOptions.UsageError(message: "readiness takes no positional arguments") }
        } catch {
            ReportCommand.printStandardError("pushbridge readiness: \((error as? ReportOptions.UsageError)?.message ?? "\(error)")\n\(usage)")
            return 2
        }
        var database = options.database
        if let config = options.config {
            do {
                settings = try ReadinessSettings.load(fileAt: config)
                database = database ?? (try? ProxyConfiguration.auditPath(inFileAt: config))
            } catch {
                ReportCommand.printStandardError("pushbridge readiness: \(error)")
                return 2
            }
        }
        let readiness: Readiness
        do {
            readiness = try AuditReader(path: database ?? AuditCommand.defaultDatabase).readiness(options.filter, settings: settings)
        } catch {
            ReportCommand.printStandardError("pushbridge readiness: \(error)")
            return 3
        }
        do {
            let text = ReadinessRendering.render(readiness, as: options.format)
            if let out = options.out { try Data(text.utf8).write(to: URL(fileURLWithPath: out)) } else { FileHandle.standardOutput.write(Data(text.utf8)) }
        } catch {
            ReportCommand.printStandardError("pushbridge readiness: \(error)")
            return 3
        }
        return readiness.allReady ? 0 : 1
    }
}
