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

    /// The audit row of one replayed request, redacted as the live path redacts: by key, and by
    /// value for the credential the capture presents (`Authorization`, Pushwoosh `auth`), the
    /// configured OpenPush keys and every secret the body holds, wherever they appear (a key
    /// repeated in another body field included). A replayed request counts as authenticated:
    /// the capture is the operator's own.
    static func record(_ request: CapturedRequest, directory: AppDirectory, now: Int64) -> (AuditEntry, AuditCompletion) {
        let requestId = RequestID.make(nowMs: now)
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        let http = HTTPRequest(method: request.method, target: path, headers: request.headers, body: request.body)
        let configured = ProxySnapshot(directory: directory, legacy: .init()).configuredSecrets
        guard let route = InboundRoute.match(path: path) else {
            let credential = http.header("authorization").flatMap(PresentedCredential.schemeValue)
            let (extra, scrubber) = Inbound.unauthenticatedScrubber(configured: configured, credential: credential)
            let entry = AuditEntry(requestId: requestId, receivedAt: now, path: path, route: nil, translation: nil, parsedBody: ParsedBody(request.body),
                                   keyFingerprint: credential.map(Fingerprint.of), extraSecrets: extra)
            return (entry, scrubber.scrub(AuditCompletion(finishedAt: now, outcome: .rejected, errorMessage: "no dialect serves \(path)")))
        }
        let body = ParsedBody(request.body)
        let credential = PresentedCredential.from(request: http, dialect: route.dialect, body: body.object)
        let (extra, scrubber) = Inbound.unauthenticatedScrubber(configured: configured, credential: credential)
        var inbound = Inbound(call: Call(request: http, requestId: requestId, started: now), route: route, dialect: Dialects.named(route.dialect),
                              body: body, credential: credential, extraSecrets: extra, scrubber: scrubber)
        inbound.authenticated()
        let candidates = directory.apps.filter { $0.dialect == route.dialect }
        let named = route.namedSourceApp(body: body.object)
        let app = named.flatMap { name in candidates.first { $0.sourceAppId == name } } ?? (candidates.count == 1 ? candidates.first : nil)
        var context = app?.translationContext(now: now / 1000, requestId: requestId) ?? TranslationContext(now: now / 1000, requestId: requestId)
        // As live: a header credential stands for Pushwoosh's `auth` only when there is one.
        context.credentialInHeader = credential != nil && PresentedCredential.isInHeader(dialect: route.dialect, body: body.object)
        let translation = inbound.scrub(inbound.dialect.translate(route: route, parsed: body, context: context))
        var entry = inbound.auditEntry(translation: translation)
        entry.appName = app?.name
        let outcome: AuditOutcome = translation.isForwardable ? .translated : .rejected
        return (entry, inbound.scrub(AuditCompletion(finishedAt: now, outcome: outcome, errorMessage: translation.error.map { "\($0)" })))
    }
}
