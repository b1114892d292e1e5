import PushBridgeServer

/// The checked arguments of one command: every value already passed its option's rule.
struct ParsedArguments: Sendable {
    /// `pushbridge audit list`: the prefix of the command's error messages.
    var commandPath: String
    /// Option values by canonical name (the last one wins when repeated).
    var values: [String: String] = [:]
    /// The flags given, by canonical name.
    var flags: Set<String> = []
    /// The positional arguments, in order.
    var positional: [String] = []

    /// The value of `--name`, nil when absent.
    subscript(_ name: String) -> String? { values[name] }

    /// True when the flag `--name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// `--name` as Unix milliseconds (already checked by the parser).
    func time(_ name: String) -> Int64? { values[name].flatMap(TimeArgument.milliseconds) }

    /// `--name` as a number (already checked by the parser).
    func number(_ name: String) -> Int? { values[name].flatMap { Int($0) } }

    /// `--format`, `text` when absent.
    var format: OutputFormat { values["format"].flatMap(OutputFormat.init(rawValue:)) ?? .text }

    /// The report filter from `--since --until --app --dialect --route`.
    var reportFilter: ReportFilter {
        var filter = ReportFilter()
        filter.since = time("since")
        filter.until = time("until")
        filter.app = values["app"]
        filter.dialect = values["dialect"]
        filter.route = values["route"]
        return filter
    }

    /// Writes `pushbridge audit list: MESSAGE` to standard error and returns `status`.
    func fail(_ message: String, status: Int32 = 1) -> Int32 {
        printError("\(commandPath): \(message)")
        return status
    }
}
