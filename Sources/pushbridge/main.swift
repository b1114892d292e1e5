import Foundation
import PushBridgeCore
import PushBridgeServer

/// `pushbridge COMMAND …`: the CLI. Each command lives in its own file.
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
usage: pushbridge COMMAND [options]
  serve --config FILE [--welcome FILE]                     run the proxy
  translate --path PATH [--config FILE] [--json] [FILE]   translate one request body (stdin without FILE)
  sandbox [--listen H:P] [--seed FILE] [--db FILE]        run the local OpenPush sandbox
  sandbox sends --db FILE [--app ID]                       list what the sandbox would have sent
  audit list|show|prune [--db FILE] …                      read and prune the audit
  scheduled list|cancel ID [--db FILE] [--audit-db FILE]   list or cancel scheduled starts
  report [--db FILE] [--since T] [--format F] [--out FILE] the diff report over the audit
  readiness [--db FILE] [--config FILE] [--app A] [--since T]  the cut-over verdict per app and route (exit 0: all ready)
  replay FILE [--config FILE] [--audit FILE] [--format F]  translate captured traffic offline, then report
  check-config FILE                                        validate a configuration file
  docs field-mapping                                       print docs/field-mapping.md
"""

/// `--help` (or `-h`) anywhere after a command prints that command's usage and exits 0.
let commandUsage: [String: String] = [
    "audit": AuditCommand.usage, "scheduled": ScheduledCommand.usage, "report": ReportCommand.usage, "replay": ReplayCommand.usage,
    "sandbox": SandboxCommand.usage,
]
if let command = arguments.first, arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
    let lines = usage.split(separator: "\n").filter { $0.hasPrefix("  \(command) ") }.map { "  pushbridge" + $0.dropFirst(1) }
    print(commandUsage[command] ?? (lines.isEmpty ? usage : "usage:\n" + lines.joined(separator: "\n")))
    exit(0)
}

let status: Int32
switch arguments.first {
case "serve": status = await ServeCommand.run(Array(arguments.dropFirst()))
case "translate": status = TranslateCommand.run(Array(arguments.dropFirst()))
case "docs": status = DocsCommand.run(Array(arguments.dropFirst()))
case "sandbox":
    do {
        status = try await SandboxCommand.run(arguments: Array(arguments.dropFirst()))
    } catch {
        printError("pushbridge sandbox: \(error)")
        status = 1
    }
case "audit": status = await AuditCommand.run(arguments: Array(arguments.dropFirst()))
case "scheduled": status = ScheduledCommand.run(arguments: Array(arguments.dropFirst()))
case "report": status = await ReportCommand.run(arguments: Array(arguments.dropFirst()))
case "readiness": status = await ReadinessCommand.run(arguments: Array(arguments.dropFirst()))
case "replay": status = await ReplayCommand.run(arguments: Array(arguments.dropFirst()))
case "check-config": status = CheckConfigCommand.run(Array(arguments.dropFirst()))
case "-h", "--help", "help": print(usage); status = 0
default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    status = 2
}
exit(status)
