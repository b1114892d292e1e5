/// One command or subcommand of the CLI, declared as data: its options, its positional
/// arguments, its subcommands and what it runs. ``ArgumentParser`` reads argv against the
/// tree of these and ``CommandHelp`` writes every `--help` from them, so a flag exists in
/// exactly one place.
struct Command: Sendable {
    /// A positional argument (`ID`, `FILE`).
    struct Positional: Sendable {
        /// The placeholder shown in the usage line.
        var name: String
        /// One line for `--help`.
        var help: String
        /// False when the command needs it.
        var optional = false
    }

    /// What a runnable command does with its parsed arguments; returns the exit status.
    typealias Run = @Sendable (ParsedArguments) async -> Int32

    /// The word on the command line (`list`).
    var name: String
    /// One line for the command list and the top of `--help`.
    var summary: String
    /// The options it takes.
    var options: [Option] = []
    /// Its positional arguments, in order.
    var positionals: [Positional] = []
    /// Its subcommands; the first argument picks one.
    var subcommands: [Command] = []
    /// Paragraphs printed after the options in `--help` (exit status, defaults).
    var notes: String = ""
    /// Nil for a group that only holds subcommands (`audit`).
    var run: Run?

    /// The subcommand called `word`.
    func subcommand(_ word: String) -> Command? { subcommands.first { $0.name == word } }

    /// The option spelled `--spelling` (its name or an alias).
    func option(spelled spelling: String) -> Option? {
        options.first { $0.name == spelling || $0.aliases.contains(spelling) }
    }
}
