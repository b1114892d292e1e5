/// The parsed arguments of `pushbridge report` and `pushbridge replay`.
struct ReportOptions {
    struct UsageError: Error {
        var message: String
    }

    var filter = ReportFilter()
    var format = ReportFormat.text
    var out: String?
    var database: String?
    var config: String?
    var positional: [String] = []

    /// Parses `--since --until --app --dialect --route --format --out`, plus `extraFlags`.
    static func parse(_ arguments: [String], extraFlags: Set<String>) throws(UsageError) -> ReportOptions {
        var options = ReportOptions()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else {
                options.positional.append(argument)
                index += 1
                continue
            }
            let flag = String(argument.dropFirst(2))
            guard ["since", "until", "app", "dialect", "route", "format", "out"].contains(flag) || extraFlags.contains(flag) else {
                throw UsageError(message: "unknown option \(argument)")
            }
            guard index + 1 < arguments.count else { throw UsageError(message: "\(argument) needs a value") }
            let value = arguments[index + 1]
            index += 2
            switch flag {
            case "since", "until":
                guard let time = ReportFilter.parseTime(value) else { throw UsageError(message: "\(argument) takes \(TimeArgument.accepted)") }
                if flag == "since" { options.filter.since = time } else { options.filter.until = time }
            case "app": options.filter.app = value
            case "dialect": options.filter.dialect = value
            case "route": options.filter.route = value
            case "format":
                guard let format = ReportFormat(rawValue: value) else { throw UsageError(message: "--format is one of text, md, json, csv, html") }
                options.format = format
            case "out": options.out = value
            case "db", "audit": options.database = value
            case "config": options.config = value
            default: break
            }
        }
        return options
    }
}
