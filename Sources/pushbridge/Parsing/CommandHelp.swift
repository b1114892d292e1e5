/// Writes `--help` from a ``Command`` declaration: the usage line, the summary, the
/// subcommands, the options and the notes. Nothing in it is written by hand per command.
enum CommandHelp {
    /// `pushbridge audit list` for a path from the root.
    static func name(_ path: [Command]) -> String { path.map(\.name).joined(separator: " ") }

    /// `pushbridge audit list [--db FILE] [--limit N] …`.
    static func synopsis(_ path: [Command]) -> String {
        let command = path[path.count - 1]
        var words = [name(path)]
        if command.run == nil { return (words + ["COMMAND"]).joined(separator: " ") }
        for option in command.options {
            words.append(option.required ? option.synopsis : "[\(option.synopsis)]")
        }
        for positional in command.positionals {
            words.append(positional.optional ? "[\(positional.name)]" : positional.name)
        }
        return words.joined(separator: " ")
    }

    /// The whole `--help` text of the command at `path`.
    static func help(_ path: [Command]) -> String {
        let command = path[path.count - 1]
        var text = "usage: \(synopsis(path))\n\n\(command.summary)\n"
        if path.count == 1 {
            text += "\ncommands:\n" + table(everyCommand(below: path).map { ($0.map(\.name).dropFirst().joined(separator: " "), $0.last?.summary ?? "") })
            text += "\nEach command answers --help; pushbridge --version prints the version, the commit and the build date.\n"
            return text
        }
        if !command.subcommands.isEmpty {
            text += "\ncommands:\n" + table(command.subcommands.map { (name(path + [$0]), $0.summary) })
        }
        if !command.positionals.isEmpty {
            text += "\narguments:\n" + table(command.positionals.map { ($0.name, $0.help) })
        }
        if !command.options.isEmpty {
            text += "\noptions:\n" + table(command.options.map { option in
                let aliases = option.aliases.map { "; --\($0) is accepted too" }.joined()
                return (option.synopsis, option.help + (option.required ? " (required)" : "") + aliases)
            })
        }
        if !command.notes.isEmpty { text += "\n\(command.notes)\n" }
        return text
    }

    /// Every command and subcommand under `path`, depth first (`[root, audit]`, `[root, audit, list]`, …).
    static func everyCommand(below path: [Command]) -> [[Command]] {
        path[path.count - 1].subcommands.flatMap { sub in [path + [sub]] + everyCommand(below: path + [sub]) }
    }

    /// Two left-aligned columns, indented by two spaces.
    static func table(_ rows: [(String, String)]) -> String {
        let width = min(rows.map(\.0.count).max() ?? 0, 34)
        return rows.map { left, right in
            let pad = left.count < width ? String(repeating: " ", count: width - left.count) : ""
            return left.count > width ? "  \(left)\n  \(String(repeating: " ", count: width))  \(right)\n" : "  \(left)\(pad)  \(right)\n"
        }.joined()
    }
}
