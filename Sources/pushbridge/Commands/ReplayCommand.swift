import Foundation
import PushBridgeServer

/// `pushbridge replay FILE`: runs captured traffic through the translator offline into a
/// scratch audit (a temporary file unless `--db`), then prints the report. Nothing is
/// forwarded; rows are `translated` or `rejected`.
enum ReplayCommand {
    /// The declaration.
    static let command = Command(
        name: "replay", summary: "translate captured traffic offline into an audit, then print the report",
        options: [
            .db("keep the replayed audit in FILE (default: a temporary file, removed afterwards)", aliases: ["audit"]),
            .config("map each request's app as the proxy would"),
        ] + Option.reportFilters + [.format(OutputFormat.report), .out],
        positionals: [.init(name: "FILE", help: "JSON lines of {\"method\",\"path\",\"headers\",\"body\"}, or a HAR file")],
        notes: timeNote, run: { await run($0) })

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-replay-\(UUID().uuidString).sqlite").path
        let auditPath = arguments["db"] ?? scratch
        defer {
            if arguments["db"] == nil { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch + suffix) } }
        }
        do {
            let requests = try CapturedRequest.parse(Array(try Data(contentsOf: URL(fileURLWithPath: arguments.positional[0]))))
            let apps = try arguments["config"].map { try ProxyConfiguration.load(fileAt: $0, environment: ProcessInfo.processInfo.environment).apps } ?? []
            let progress = ReplayProgress(total: requests.count, enabled: isatty(STDERR_FILENO) == 1)
            try await Replay.run(requests, apps: apps, auditPath: auditPath, progress: { progress.update($0) })
            progress.finish()
            let report = try AuditReader(path: auditPath).report(arguments.reportFilter)
            try writeOutput(ReportRenderer.render(report, as: arguments.format.report), to: arguments["out"])
            return 0
        } catch {
            return arguments.fail("\(error)")
        }
    }
}
