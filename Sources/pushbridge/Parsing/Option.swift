import PushBridgeServer

/// One `--name` a command accepts, with the kind of value it takes. The parser checks every
/// value against its kind, so a command's `run` only ever sees valid values.
struct Option: Sendable {
    /// What the option takes.
    enum Kind: Sendable {
        /// No value: present or absent.
        case flag
        /// Any text; `placeholder` names it in the usage line (`FILE`).
        case text(placeholder: String)
        /// A time in every form ``TimeArgument`` reads.
        case time
        /// A whole number ≥ `minimum`.
        case number(minimum: Int)
        /// One of `choices`; `synonyms` maps other accepted spellings to a choice.
        case choice(placeholder: String, choices: [String], synonyms: [String: String])
        /// `HOST:PORT`.
        case address
    }

    /// The canonical name, without the dashes.
    var name: String
    /// What it takes.
    var kind: Kind
    /// One line for `--help`.
    var help: String
    /// Other accepted names (an older spelling the docs used).
    var aliases: [String] = []
    /// True when the command cannot run without it.
    var required = false

    /// The placeholder after the name in usage lines, nil for a flag.
    var placeholder: String? {
        switch kind {
        case .flag: nil
        case .text(let placeholder), .choice(let placeholder, _, _): placeholder
        case .time: "T"
        case .number: "N"
        case .address: "HOST:PORT"
        }
    }

    /// `--db FILE`, `--all`.
    var synopsis: String { placeholder.map { "--\(name) \($0)" } ?? "--\(name)" }

    /// The value as the command will read it (a choice's synonym becomes the choice), or
    /// what is wrong with it, worded for a person.
    func check(_ value: String, spelled: String) -> Result<String, ParseError> {
        switch kind {
        case .flag, .text:
            return .success(value)
        case .time:
            guard TimeArgument.milliseconds(value) != nil else {
                return .failure(ParseError("--\(spelled) takes \(TimeArgument.accepted), not '\(value)'"))
            }
        case .number(let minimum):
            guard let number = Int(value), number >= minimum else {
                return .failure(ParseError("--\(spelled) takes a whole number ≥ \(minimum), not '\(value)'"))
            }
        case .choice(_, let choices, let synonyms):
            if let choice = synonyms[value] { return .success(choice) }
            guard choices.contains(value) else {
                return .failure(ParseError("--\(spelled) '\(value)' is not one of \(choices.joined(separator: ", "))"))
            }
        case .address:
            guard HostPort(value) != nil else { return .failure(ParseError("--\(spelled) takes HOST:PORT, not '\(value)'")) }
        }
        return .success(value)
    }
}

/// A `HOST:PORT` argument (`127.0.0.1:4100`, `[::1]:0`).
struct HostPort: Equatable {
    /// The host, without brackets.
    var host: String
    /// The port (0 picks one).
    var port: UInt16

    /// `host:port`.
    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Nil unless `text` is `HOST:PORT` with a port in 0…65535.
    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        let host = text[..<colon].trimmingPrefix("[")
        self.host = String(host.hasSuffix("]") ? host.dropLast() : host)
        guard !self.host.isEmpty else { return nil }
        self.port = port
    }
}

/// A command-line usage error: the message names the argument and the rule (exit status 2).
struct ParseError: Error, CustomStringConvertible {
    /// What is wrong, e.g. `unknown option --bogus`.
    let description: String
    init(_ description: String) { self.description = description }
}
