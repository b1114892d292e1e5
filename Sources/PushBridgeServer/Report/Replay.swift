import Foundation
import PushBridgeCore

/// Captured traffic through the translator, offline, into an audit: what `pushbridge replay`
/// reports on. Nothing is forwarded; rows are `translated` or `rejected`.
public enum Replay {
    /// Translates `requests` and records each in the audit at `auditPath` (created if needed),
    /// 256 at a time so the writer's group commit amortizes the fsync; calls `progress` with
    /// the number done. `clock` stamps each row (Unix milliseconds).
    public static func run(_ requests: [CapturedRequest], apps: [AppConfiguration] = [], auditPath: String,
                           clock: @Sendable () -> Int64 = AuditClock.nowMilliseconds,
                           progress: @Sendable (Int) -> Void = { _ in }) async throws {
        let store = try AuditStore(path: auditPath)
        let directory = AppDirectory(apps: apps)
        var done = 0
        for chunk in stride(from: 0, to: requests.count, by: 256).map({ requests[$0..<min($0 + 256, requests.count)] }) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for request in chunk {
                    let (entry, completion) = record(request, directory: directory, now: clock())
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
        let requestId = RequestID.make(nowMs: now)
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        let route = InboundRoute.match(path: path)
        var context = TranslationContext(now: now / 1000, requestId: requestId)
        var appName: String?
        if let route {
            let named = route.namedSourceApp(body: (try? JSONParser.parse(request.body))?.objectValue)
            let candidates = directory.apps.filter { $0.dialect == route.dialect }
            let app = named.flatMap { name in candidates.first { $0.sourceAppId == name } } ?? (candidates.count == 1 ? candidates.first : nil)
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
