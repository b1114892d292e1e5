/// The parsed arguments of `pushbridge audit`.
struct AuditCommandOptions {
    enum Subcommand: Equatable {
        case list
        case show(String)
        case prune(days: Int)
    }

    struct UsageError: Error {
        var message: String
    }

    var subcommand: Subcommand
    var database = AuditCommand.defaultDatabase
    var limit = 50
    var outcome: String?
    var app: String?
    var since: Int64?

    static func parse(_ arguments: [String]) throws(UsageError) -> AuditCommandOptions {
        guard let verb = arguments.first else { throw UsageError(message: "missing subcommand") }
        var positional: [String] = []
        var values: [String: String] = [:]
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                let flag = String(argument.dropFirst(2))
                guard ["db", "limit", "outcome", "app", "since", "older-than-days"].contains(flag) else { throw UsageError(message: "unknown option \(argument)") }
                guard index + 1 < arguments.count else { throw UsageError(message: "\(argument) needs a value") }
                values[flag] = arguments[index + 1]
                index += 2
            } else {
                positional.append(argument)
                index += 1
            }
        }
        var options: AuditCommandOptions
        switch verb {
        case "list":
            guard positional.isEmpty else { throw UsageError(message: "list takes no arguments") }
            options = AuditCommandOptions(subcommand: .list)
        case "show":
            guard positional.count == 1 else { throw UsageError(message: "show takes one request id") }
            options = AuditCommandOptions(subcommand: .show(positional[0]))
        case "prune":
            guard positional.isEmpty, let text = values["older-than-days"], let days = Int(text), days >= 0 else {
                throw UsageError(message: "prune needs --older-than-days N (N ≥ 0)")
            }
            options = AuditCommandOptions(subcommand: .prune(days: days))
        default:
            throw UsageError(message: "unknown subcommand \(verb)")
        }
        if let db = values["db"] { options.database = db }
        if let text = values["limit"] {
            guard let limit = Int(text), limit > 0 else { throw UsageError(message: "--limit must be a positive number") }
            options.limit = limit
        }
        if let text = values["since"] {
            guard let since = TimeArgument.milliseconds(text) else { throw UsageError(message: "--since takes \(TimeArgument.accepted)") }
            options.since = since
        }
        options.outcome = values["outcome"]
        options.app = values["app"]
        return options
    }
}
