import Foundation

/// Writes a line to standard error.
func printError(_ s: String) {
    FileHandle.standardError.write(Data((s + "\n").utf8))
}

/// Writes `text` to standard output as it is (no newline added).
func writeOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

/// Writes `text` to the file at `path`, or to standard output when `path` is nil.
func writeOutput(_ text: String, to path: String?) throws {
    guard let path else { return writeOutput(text) }
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

/// True when standard output is a terminal.
var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
