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
        notes: timeNote + " Exit status 1 when an entry of FILE cannot be read: each is named on stderr with its reason, and the report covers the others.", run: { await run($0) })

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-replay-\(UUID().uuidString).sqlite").path
        let auditPath = arguments["db"] ?? scratch
        defer {
            if arguments["db"] == nil { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch + suffix) } }
        }
        do {
            let traffic = try CapturedRequest.read(Array(try Data(contentsOf: URL(fileURLWithPath: arguments.positional[0]))))
            let requests = traffic.requests
            let apps = try arguments["config"].map { try ProxyConfiguration.load(fileAt: $0, environment: ProcessInfo.processInfo.environment).apps } ?? []
            let progress = ReplayProgress(total: requests.count, enabled: isatty(STDERR_FILENO) == 1)
            try await Replay.run(requests, apps: apps, auditPath: auditPath, progress: { progress.update($0) })
            progress.finish()
            let report = try AuditReader(path: auditPath).report(arguments.reportFilter)
            try writeOutput(ReportRenderer.render(report, as: arguments.format.report), to: arguments["out"])
            return unreadable(traffic, arguments)
        } catch {
            return arguments.fail("\(error)")
        }
    }

    /// Names every entry of the capture that could not be read on standard error; exit status
    /// 1 when there was one (the report covers only the entries that could be read), else 0.
    static func unreadable(_ traffic: CapturedTraffic, _ arguments: ParsedArguments) -> Int32 {
        guard !traffic.unreadable.isEmpty else { return 0 }
        for entry in traffic.unreadable { printError("\(arguments.commandPath): unreadable \(entry)") }
        return arguments.fail("\(traffic.unreadable.count) of \(traffic.entries) entries could not be read and are not in the report (\(traffic.requests.count) replayed)")
    }
}
