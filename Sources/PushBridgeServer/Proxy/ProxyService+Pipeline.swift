import Foundation
import PushBridgeCore

/// One inbound request on its way through the pipeline: what every stage needs to answer,
/// audit and log it.
struct Inbound: Sendable {
    var request: HTTPRequest
    var route: InboundRoute
    var dialect: any Dialect
    var requestId: String
    var started: Int64
    /// The body parsed once, shared by credential lookup, translation and the audit.
    var body: ParsedBody
    var object: JSONObject? { body.object }
    var credential: String?
    var keyFingerprint: String? { credential.map(Fingerprint.of) }
    /// Secrets swept by value besides those under secret keys: the configured OpenPush keys and
    /// the presented credential.
    var extraSecrets: [String]
    /// Every secret known for this request, replaced wherever it would leave (see Inbound+Secrets).
    var scrubber: SecretScrubber
    /// False until the caller is authenticated: until then the audit keeps only an excerpt.
    var isAuthenticated = false
}

extension ProxyService {
    /// Resolve, authenticate, translate, then hand over to the app's mode for this route.
    func pipeline(_ request: HTTPRequest, route: InboundRoute, dialect: any Dialect, requestId: String, started: Int64) async -> HTTPResponse {
        let snapshot = deps.snapshots.snapshot
        let body = ParsedBody(request.body)
        let object = body.object
        let credential = PresentedCredential.from(request: request, dialect: route.dialect, body: object)
        let (extra, scrubber) = Inbound.unauthenticatedScrubber(configured: snapshot.configuredSecrets, credential: credential)
        var inbound = Inbound(request: request, route: route, dialect: dialect, requestId: requestId, started: started, body: body,
                              credential: credential, extraSecrets: extra, scrubber: scrubber)

        // Which app, and may this caller use it? A caller without a configured key gets the same
        // answer for an unknown app as for a wrong key, so app ids cannot be probed.
        let app: AppConfiguration
        let refusal = ProxyFailure.unauthorized(credential == nil ? "missing credentials" : "invalid credentials")
        switch snapshot.directory.app(dialect: route.dialect, sourceApp: route.namedSourceApp(body: object), credential: credential) {
        case .success(let a): app = a
        case .failure(.unknownApp(let id)):
            guard snapshot.directory.authenticatesAnyApp(credential, dialect: route.dialect) else { return await refuse(inbound, refusal, app: id) }
            return await refuse(inbound, .notFound("app \(id) is not configured in PushBridge"), app: id)
        case .failure(.noAppNamed) where route.dialect == .pushwoosh && object == nil:
            let t = inbound.scrub(dialect.translate(route: route, parsed: body, context: TranslationContext(now: started / 1000)))
            return await refuse(inbound, .badRequest(t.error ?? TranslationError(field: "", rule: "malformed JSON")), translation: t)
        case .failure(.noAppNamed) where route.dialect == .pushwoosh:
            return await refuse(inbound, .badRequest(TranslationError(field: "application", rule: "is required")))
        case .failure:
            return await refuse(inbound, refusal)
        }
        guard snapshot.directory.authorizes(credential, for: app) else { return await refuse(inbound, refusal, app: app.name) }
        inbound.authenticated()

        // Translate; every start gets its idempotency key before anything is audited or sent.
        var context = app.translationContext(now: started / 1000, requestId: requestId)
        context.credentialInHeader = PresentedCredential.isInHeader(dialect: route.dialect, body: object)
        var translation = inbound.scrub(dialect.translate(route: route, parsed: body, context: context))
        translation.requests = IdempotencyKeys.assign(translation.requests, requestId: requestId)
        let held = deps.log.findings(translation.findings, requestId: requestId, dialect: route.dialect, app: app.name, route: route.kind)
        deps.metrics.recordSuppressedLogLines(app: app.name, held)
        deps.metrics.recordFindings(translation.findings, dialect: route.dialect)

        switch app.mode(for: route.kind) {
        case .observe:
            return await observe(inbound, translation: translation, app: app, snapshot: snapshot)
        case .shadow where app.shadow?.primary != .openpush:
            return await legacyPrimary(inbound, translation: translation, app: app, snapshot: snapshot)
        case .shadow, .openpush:
            if let error = translation.error {
                return await refuse(inbound, .badRequest(error), translation: translation, app: app.name)
            }
            if translation.schedule != nil {
                return inbound.scrub(await schedule(inbound, translation: translation, app: app))
            }
            let (response, _) = await openPush(inbound, translation: translation, app: app)
            if app.mode(for: route.kind) == .shadow, let base = snapshot.legacy[route.dialect] {
                shadowToLegacy(inbound, app: app, base: base, primary: response)
            }
            return inbound.scrub(response.http)
        }
    }

    /// Answers with a failure in the caller's dialect and records the complete audit row.
    func refuse(_ inbound: Inbound, _ failure: ProxyFailure, translation: Translation? = nil, app: String? = nil) async -> HTTPResponse {
        let response = inbound.scrub(http(inbound.dialect.render(failure: failure, route: inbound.route), inbound.requestId))
        var entry = inbound.auditEntry(translation: translation)
        if entry.sourceApp == nil { entry.sourceApp = app ?? inbound.route.namedSourceApp(body: inbound.object) }
        entry.appName = app
        let completion = inbound.scrub(AuditCompletion(finishedAt: deps.clock(), outcome: .rejected, responseStatus: response.status,
                                                       responseBody: String(decoding: response.body, as: UTF8.self), errorMessage: failure.message))
        if (try? await deps.audit.record(entry, completion)) == nil {
            deps.log.error("audit write failed", ["request_id": .string(inbound.requestId)])
        }
        finishLog(inbound.requestId, inbound.request, response.status, inbound.started, route: inbound.route, app: app, outcome: "rejected")
        return response
    }

    /// Writes the row before anything leaves; nil (and the answer to give) when it could not be written.
    func begin(_ inbound: Inbound, translation: Translation, app: AppConfiguration) async -> HTTPResponse? {
        var entry = inbound.auditEntry(translation: translation, targetApp: app.openPushAppID)
        entry.appName = app.name
        do {
            try await deps.audit.begin(entry)
            return nil
        } catch {
            deps.log.error("audit write failed; request not forwarded", ["request_id": .string(inbound.requestId), "error": .string("\(error)")])
            return http(inbound.dialect.render(failure: .internal("the audit could not be written; nothing was sent"), route: inbound.route), inbound.requestId)
        }
    }

    /// Completes the row and writes the access line (``settle(_:_:app:answer:ids:)``, whose
    /// retries and reconciler keep the row from staying `pending`).
    func complete(_ inbound: Inbound, _ completion: AuditCompletion, app: AppConfiguration) async {
        _ = await settle(inbound, inbound.scrub(completion), app: app)
    }
}
