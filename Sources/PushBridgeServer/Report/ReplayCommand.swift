import Foundation
import PushBridgeCore

/// `pushbridge replay FILE`: runs captured traffic through the translator offline into a
/// scratch audit (a temporary file unless `--audit`), then prints the report. Nothing is
/// forwarded; rows are `translated` or `rejected`.
public enum ReplayCommand {
    /// The usage text.
    public static let usage = """
        usage: pushbridge replay FILE [--config FILE] [--audit FILE] [--format text|md|json|csv|html] [--out FILE]
          FILE holds JSON lines of {"method","path","headers","body"} or a HAR file
        """

    /// Runs the command with `arguments` (after `replay`): 0, 1 when the work failed, 2 on a usage error.
    public static func run(arguments: [String]) async -> Int32 {
        let options: ReportOptions
        do {
            options = try ReportOptions.parse(arguments, extraFlags: ["config", "audit"])
            guard options.positional.count == 1 else { throw ReportOptions.UsageError(message: "replay takes one FILE") }
        } catch {
            ReportCommand.printStandardError("pushbridge replay: \((error as? ReportOptions.UsageError)?.message ?? "\(error)")\n\(usage)")
            return 2
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-replay-\(UUID().uuidString).sqlite").path
        let auditPath = options.database ?? scratch
        defer {
            if options.database == nil { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch + suffix) } }
        }
        do {
            let requests = try CapturedRequest.parse(Array(try Data(contentsOf: URL(fileURLWithPath: options.positional[0]))))
            let apps = try options.config.map { try ProxyConfiguration.load(fileAt: $0, environment: ProcessInfo.processInfo.environment).apps } ?? []
            let progress = ReplayProgress(total: requests.count, enabled: isatty(STDERR_FILENO) == 1)
            try await replay(requests, apps: apps, auditPath: auditPath) { progress.update($0) }
            progress.finish()
            let reader = try AuditReader(path: auditPath)
            try ReportCommand.write(try reader.report(options.filter), format: options.format, to: options.out)
            return 0
        } catch {
            ReportCommand.printStandardError("pushbridge replay: \(error)")
            return 1
        }
    }

    /// Translates `requests` and records each in the audit at `auditPath` (created if needed),
    /// 256 at a time so the writer's group commit amortizes the fsync; calls `progress` with
    /// the number done.
    public static func replay(_ requests: [CapturedRequest], apps: [AppConfiguration] = [], auditPath: String,
                              progress: @Sendable (Int) -> Void = { _ in }) async throws {
        let store = try AuditStore(path: auditPath)
        let directory = AppDirectory(apps: apps)
        var done = 0
        for chunk in stride(from: 0, to: requests.count, by: 256).map({ requests[$0..<min($0 + 256, requests.count)] }) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for request in chunk {
                    let now = AuditClock.nowMilliseconds()
                    let (entry, completion) = record(request, directory: directory, now: now)
                    group.addTask { try await store.record(entry, completion) }
                }
                try await group.waitForAll()
            }
            done += chunk.count
            progress(done)
        }
        await store.close()
    }

    /// The audit row of one replayed request.
    static func record(_ request: CapturedRequest, directory: AppDirectory, now: Int64) -> (AuditEntry, AuditCompletion) {
        let requestId = AuditRequestID.make(milliseconds: now)
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        let route = InboundRoute.match(path: path)
        var context = TranslationContext(now: now / 1000, requestId: requestId)
        var appName: String?
        if let route {
            let named = route.namedSourceApp(body: (try? JSONParser.parse(request.body))?.objectValue)
            let candidates = directory.apps.filter { $0.dialect == route.dialect }
            let app = named.flatMap { name in candidates.first { $0.sourceAppID == name } } ?? (candidates.count == 1 ? candidates.first : nil)
            if let app { context = app.translationContext(now: now / 1000, requestId: requestId) }
            appName = app?.name
        }
        let translation = Dialects.translate(path: path, body: request.body, context: context)?.1
        var entry = AuditEntry(requestId: requestId, receivedAt: now, path: path, route: route, translation: translation,
                               inboundBody: request.body, keyFingerprint: nil)
        entry.appName = appName
        let outcome: AuditOutcome = translation?.isForwardable == true ? .translated : .rejected
        let message = translation == nil ? "no dialect serves \(path)" : translation?.error.map { "\($0)" }
        return (entry, AuditCompletion(finishedAt: now, outcome: outcome, errorMessage: message))
    }
}

/// A progress bar on stderr (only when stderr is a terminal).
final class ReplayProgress: Sendable {
    let total: Int
    let enabled: Bool

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    func update(_ done: Int) {
        guard enabled, total > 0 else { return }
        let width = 30, filled = done * width / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        FileHandle.standardError.write(Data("\r\(bar) \(done)/\(total) requests".utf8))
    }

    func finish() {
        if enabled, total > 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
