/// Reads argv against a ``Command`` tree: the leading words pick the (sub)command, then
/// `--name value`, `--name=value`, flags and positional arguments, each checked against the
/// command's declaration. `--help` or `-h` anywhere asks for the help of the command picked
/// so far; `--` ends the options.
enum ArgumentParser {
    /// What to do with argv.
    enum Outcome {
        /// Run `command` with `arguments`.
        case run(Command, ParsedArguments)
        /// Print the help of the command at `path` (exit 0).
        case help([Command])
        /// A usage error for the command at `path` (exit 2).
        case usage(ParseError, [Command])
    }

    /// Parses `arguments` (argv without the program name) against `root`.
    static func parse(_ arguments: [String], root: Command) -> Outcome {
        var path = [root]
        var rest = arguments[...]
        let helpWord = rest.first == "help"
        if helpWord { rest = rest.dropFirst() }
        while let word = rest.first, let sub = path[path.count - 1].subcommand(word) {
            path.append(sub)
            rest = rest.dropFirst()
        }
        let options = rest.prefix { $0 != "--" }
        if helpWord || options.contains("--help") || options.contains("-h") { return .help(path) }
        let command = path[path.count - 1]
        guard command.run != nil else {
            let names = command.subcommands.map(\.name).joined(separator: ", ")
            guard let word = rest.first else { return .usage(ParseError("missing command: one of \(names)"), path) }
            let what = word.hasPrefix("-") ? "option \(word) before the command" : "command '\(word)'"
            return .usage(ParseError("unknown \(what); the commands are \(names)"), path)
        }
        switch read(Array(rest), for: command, path: CommandHelp.name(path)) {
        case .success(let parsed): return .run(command, parsed)
        case .failure(let error): return .usage(error, path)
        }
    }

    /// Reads the options and positional arguments of `command`.
    static func read(_ arguments: [String], for command: Command, path: String) -> Result<ParsedArguments, ParseError> {
        var parsed = ParsedArguments(commandPath: path)
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.positional.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let body = argument.drop { $0 == "-" }
            let spelled = String(body.prefix { $0 != "=" })
            let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
            guard argument.hasPrefix("--"), let option = command.option(spelled: spelled) else {
                return .failure(ParseError("unknown option \(argument.prefix { $0 != "=" })"))
            }
            guard let placeholder = option.placeholder else {
                guard inline == nil else { return .failure(ParseError("--\(spelled) takes no value")) }
                parsed.flags.insert(option.name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < arguments.count else { return .failure(ParseError("--\(spelled) needs a value (\(placeholder))")) }
                value = arguments[index]
                index += 1
            }
            switch option.check(value, spelled: spelled) {
            case .success(let checked): parsed.values[option.name] = checked
            case .failure(let error): return .failure(error)
            }
        }
        if let missing = command.options.first(where: { $0.required && parsed.values[$0.name] == nil && !parsed.flags.contains($0.name) }) {
            return .failure(ParseError("missing \(missing.synopsis)"))
        }
        let needed = command.positionals.filter { !$0.optional }.count
        if parsed.positional.count < needed {
            return .failure(ParseError("missing \(command.positionals[parsed.positional.count].name)"))
        }
        if parsed.positional.count > command.positionals.count {
            let extra = parsed.positional[command.positionals.count]
            return .failure(ParseError(command.positionals.isEmpty ? "takes no arguments, got '\(extra)'" : "unexpected argument '\(extra)'"))
        }
        return .success(parsed)
    }
}
