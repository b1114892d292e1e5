import Foundation

/// `pushbridge report`: the diff report over an audit file, in any ``ReportFormat``.
public enum ReportCommand {
    /// The usage text.
    public static let usage = """
        usage: pushbridge report [--db FILE] [--config FILE] [--since T] [--until T] [--app A] [--dialect D] [--route R]
                                 [--format text|md|json|csv|html] [--out FILE]
          --config reads the readiness thresholds and the apps, as pushbridge readiness does
          T is an ISO 8601 date (2026-06-10) or date-time (2026-06-10T12:00:00Z), Unix seconds or Unix milliseconds;
          --db defaults to pushbridge-audit.sqlite
        """

    /// Runs the command with `arguments` (after `report`); returns 0, 1 when the work failed,
    /// 2 on a usage error.
    public static func run(arguments: [String]) async -> Int32 {
        let options: ReportOptions
        do {
            options = try ReportOptions.parse(arguments, extraFlags: ["db", "config"])
            guard options.positional.isEmpty else { throw ReportOptions.UsageError(message: "report takes no positional arguments") }
        } catch {
            printStandardError("pushbridge report: \((error as? ReportOptions.UsageError)?.message ?? "\(error)")\n\(usage)")
            return 2
        }
        do {
            let settings = try options.config.map { path throws(ConfigurationError) in try ReadinessSettings.load(fileAt: path) } ?? ReadinessSettings()
            let database = try options.database ?? options.config.map { path throws(ConfigurationError) in try ProxyConfiguration.auditPath(inFileAt: path) }
            let reader = try AuditReader(path: database ?? AuditCommand.defaultDatabase)
            try write(try reader.report(options.filter, readiness: settings), format: options.format, to: options.out)
            return 0
        } catch {
            printStandardError("pushbridge report: \(error)")
            return 1
        }
    }

    /// Renders the report to `path`, or stdout when nil.
    static func write(_ report: Report, format: ReportFormat, to path: String?) throws {
        let text = ReportRenderer.render(report, as: format)
        if let path {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }

    static func printStandardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
