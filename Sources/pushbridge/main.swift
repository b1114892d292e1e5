import Foundation

/// `pushbridge COMMAND …`: every command is declared in ``PushBridgeCommands`` and read by
/// the one ``ArgumentParser``; each command's work lives in its own file under `Commands/`.
/// `pushbridge --version` prints ``PushBridgeVersion/line``.
if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
    writeOutput(PushBridgeVersion.line + "\n")
    exit(0)
}
switch ArgumentParser.parse(Array(CommandLine.arguments.dropFirst()), root: PushBridgeCommands.root) {
case .run(let command, let arguments):
    exit(await command.run?(arguments) ?? 2)
case .help(let path):
    writeOutput(CommandHelp.help(path))
    exit(0)
case .usage(let error, let path):
    printError("\(CommandHelp.name(path)): \(error)\nusage: \(CommandHelp.synopsis(path))\n(\(CommandHelp.name(path)) --help says more)")
    exit(2)
}
