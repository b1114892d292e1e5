import Foundation
import PushBridgeCore

extension ProxyService {
    /// Resolve, authenticate, translate, audit, forward, answer.
    func pipeline(_ request: HTTPRequest, route: InboundRoute, dialect: any Dialect, requestId: String, started: Int64) async -> HTTPResponse {
        let object = (try? JSONParser.parse(request.body))?.objectValue
        let credential = PresentedCredential.from(request: request, dialect: route.dialect, body: object)
        let keyFingerprint = credential.map(Fingerprint.of)
        func refuse(_ failure: ProxyFailure, translation: Translation? = nil, app: String? = nil) async -> HTTPResponse {
            let response = http(dialect.render(failure: failure, route: route), requestId)
            var entry = AuditEntry(requestId: requestId, receivedAt: started, path: request.path, route: route, translation: translation,
                                   inboundBody: request.body, keyFingerprint: keyFingerprint)
            if entry.sourceApp == nil { entry.sourceApp = app ?? route.namedSourceApp(body: object) }
            let completion = AuditCompletion(finishedAt: deps.clock(), outcome: .rejected, responseStatus: response.status,
                                             responseBody: String(decoding: response.body, as: UTF8.self), errorMessage: failure.message)
            if (try? await deps.audit.record(entry, completion)) == nil {
                deps.log.error("audit write failed", ["request_id": .string(requestId)])
            }
            finishLog(requestId, request, response.status, started, route: route, app: app, outcome: "rejected")
            return response
        }

        // Which app, and may this caller use it?
        let app: AppConfiguration
        switch deps.directory.app(dialect: route.dialect, sourceApp: route.namedSourceApp(body: object), credential: credential) {
        case .success(let a): app = a
        case .failure(.unknownApp(let id)):
            return await refuse(.notFound("app \(id) is not configured in PushBridge"), app: id)
        case .failure(.noAppNamed) where route.dialect == .pushwoosh && object == nil:
            let t = dialect.translate(route: route, body: request.body, context: TranslationContext(now: started / 1000))
            return await refuse(.badRequest(t.error ?? TranslationError(field: "", rule: "malformed JSON")), translation: t)
        case .failure(.noAppNamed) where route.dialect == .pushwoosh:
            return await refuse(.badRequest(TranslationError(field: "application", rule: "is required")))
        case .failure:
            return await refuse(.unauthorized(credential == nil ? "missing credentials" : "invalid credentials"))
        }
        guard deps.directory.authorizes(credential, for: app) else {
            return await refuse(.unauthorized(credential == nil ? "missing credentials" : "invalid credentials for app \(app.sourceAppID)"), app: app.name)
        }

        // Translate; refuse what cannot be forwarded whole.
        let translation = dialect.translate(route: route, body: request.body, context: app.translationContext(now: started / 1000, requestId: requestId))
        deps.log.findings(translation.findings, requestId: requestId, dialect: route.dialect, app: app.name, route: route.kind)
        deps.metrics.recordFindings(translation.findings, dialect: route.dialect)
        if let error = translation.error {
            return await refuse(.badRequest(error), translation: translation, app: app.name)
        }
        if translation.schedule != nil {
            return await refuse(.badRequest(TranslationError(field: "send_date", rule: "is in the future",
                message: "send_date is in the future: scheduled starts need PushBridge's scheduler, which this build does not run yet; send without send_date")),
                translation: translation, app: app.name)
        }

        // The row is durable before anything leaves.
        let entry = AuditEntry(requestId: requestId, receivedAt: started, path: request.path, route: route, translation: translation,
                               inboundBody: request.body, keyFingerprint: keyFingerprint, targetApp: app.openPushAppID)
        do {
            try await deps.audit.begin(entry)
        } catch {
            deps.log.error("audit write failed; request not forwarded", ["request_id": .string(requestId), "error": .string("\(error)")])
            return http(dialect.render(failure: .internal("the audit could not be written; nothing was sent"), route: route), requestId)
        }

        let key = app.passThroughKey ? (credential ?? "") : (app.openPushKey?.value ?? "")
        var results: [UpstreamResult] = []
        var attempts: [UpstreamAttempt] = []
        for r in translation.requests {
            let (result, attempt) = await deps.forwarder.send(r, key: key, requestId: requestId)
            results.append(result)
            attempts.append(attempt)
            deps.metrics.observeUpstreamLatency(seconds: attempt.latencyMs / 1000)
            deps.metrics.recordUpstreamAttempt(result: attempt.status.map { "\($0 / 100)xx" } ?? "error")
        }
        let response = http(dialect.render(results: results, for: translation), requestId)
        let failed = results.contains { if case .failed = $0 { true } else { false } }
        let completion = AuditCompletion(
            finishedAt: deps.clock(), outcome: failed ? .failed : .forwarded,
            upstreamStatus: attempts.last?.status, upstreamBody: attempts.last?.body,
            upstreamLatencyMs: attempts.reduce(0) { $0 + $1.latencyMs },
            attempts: attempts.map { AuditAttempt(at: $0.startedAt, status: $0.status, error: $0.error, latencyMs: $0.latencyMs) },
            responseStatus: response.status, responseBody: String(decoding: response.body, as: UTF8.self),
            errorMessage: results.compactMap { if case .failed(let m) = $0 { m } else { nil } }.first)
        if (try? await deps.audit.finish(requestId, completion)) == nil {
            deps.log.error("audit completion failed", ["request_id": .string(requestId)])
        }
        finishLog(requestId, request, response.status, started, route: route, app: app.name, outcome: completion.outcome.rawValue)
        return response
    }
}
