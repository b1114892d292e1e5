import Foundation

/// A tiny option parser: `--name value`, `--flag`, and positional arguments.
struct CommandOptions {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positional: [String] = []

    /// Parses arguments; `valued` names the options that take a value. Throws a usage message.
    init(_ arguments: [String], valued: Set<String>, flags allowed: Set<String>) throws(UsageError) {
        var it = arguments.makeIterator()
        while let a = it.next() {
            if a.hasPrefix("--") {
                let name = String(a.dropFirst(2))
                if valued.contains(name) {
                    guard let v = it.next() else { throw UsageError("--\(name) needs a value") }
                    values[name] = v
                } else if allowed.contains(name) {
                    flags.insert(name)
                } else {
                    throw UsageError("unknown option --\(name)")
                }
            } else {
                positional.append(a)
            }
        }
    }
}

/// A command-line usage error (exit status 2).
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Writes a line to standard error.
func printError(_ s: String) {
    FileHandle.standardError.write(Data((s + "\n").utf8))
}

/// True when standard output is a terminal.
var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
