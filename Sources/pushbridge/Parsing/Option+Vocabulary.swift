import PushBridgeServer

/// The one flag vocabulary every command draws from: the same name, value and wording for
/// the same idea wherever it applies.
extension Option {
    /// `--db FILE`: the database a command reads or writes.
    static func db(_ help: String, required: Bool = false, aliases: [String] = []) -> Option {
        Option(name: "db", kind: .text(placeholder: "FILE"), help: help, aliases: aliases, required: required)
    }

    /// `--config FILE`.
    static func config(_ help: String, required: Bool = false) -> Option {
        Option(name: "config", kind: .text(placeholder: "FILE"), help: help, required: required)
    }

    /// `--since T`.
    static let since = Option(name: "since", kind: .time, help: "only requests received at or after T")
    /// `--until T`.
    static let until = Option(name: "until", kind: .time, help: "only requests received before T")

    /// `--app A`: an app's configured name or its source app id.
    static func app(_ help: String = "only app A (its name in the configuration or its source app id)") -> Option {
        Option(name: "app", kind: .text(placeholder: "A"), help: help)
    }

    /// `--out FILE`.
    static let out = Option(name: "out", kind: .text(placeholder: "FILE"), help: "write to FILE instead of standard output")

    /// `--format F`, limited to the formats that apply to the command; `text` is the default.
    static func format(_ formats: [OutputFormat]) -> Option {
        let names = formats.map(\.rawValue)
        var synonyms: [String: String] = [:]
        for format in formats { for synonym in format.synonyms { synonyms[synonym] = format.rawValue } }
        return Option(name: "format", kind: .choice(placeholder: names.joined(separator: "|"), choices: names, synonyms: synonyms),
                      help: "output format (default \(names[0]))")
    }

    /// `--db` of the commands that also take `--config`: the audit they read.
    static let auditFollowingConfig = Option.db(
        "the audit database (default: the configuration's audit_db, else \(ProxyConfiguration.defaultAuditDatabasePath))")

    /// The filters the report and the readiness verdict share.
    static let reportFilters: [Option] = [
        .since, .until, .app(),
        Option(name: "dialect", kind: .text(placeholder: "D"), help: "only dialect D (onesignal, pushwoosh, buzzkit)"),
        Option(name: "route", kind: .text(placeholder: "R"), help: "only route R (start, update, end, …)"),
    ]
}

/// The one `--format` vocabulary. A command lists the formats that apply to it.
enum OutputFormat: String, Sendable, CaseIterable {
    /// Aligned text for a terminal.
    case text
    /// GitHub-flavoured Markdown (`markdown` is accepted too).
    case md
    /// JSON.
    case json
    /// CSV.
    case csv
    /// One self-contained HTML page.
    case html

    /// Other spellings accepted for the same format.
    var synonyms: [String] { self == .md ? ["markdown"] : [] }

    /// The report formats.
    static let report: [OutputFormat] = [.text, .md, .json, .csv, .html]

    /// The matching report format.
    var report: ReportFormat { ReportFormat(rawValue: rawValue) ?? .text }
}

/// What every time option's `--help` adds once.
let timeNote = "T is \(TimeArgument.accepted)."
