import PushBridgeCore

/// The stage before translation: which app, and may this caller use it. Everything that can
/// refuse a request before its body is translated refuses here. A caller without a configured
/// key gets the same answer for an unknown app as for a wrong key, so app ids cannot be probed.
enum Admission {
    /// What admission decided.
    enum Decision: Sendable {
        /// The caller may use `app`.
        case admitted(Inbound, AppConfiguration)
        /// Refused, with the refusal's outcome.
        case refused(Outcome)
    }

    /// Parses the body once, finds the app and checks the credential.
    static func admit(_ call: Call, route: InboundRoute, snapshot: ProxySnapshot, now: Int64) -> Decision {
        let directory = snapshot.directory
        let body = ParsedBody(call.request.body)
        let object = body.object
        let credential = PresentedCredential.from(request: call.request, dialect: route.dialect, body: object)
        let (extra, scrubber) = Inbound.unauthenticatedScrubber(configured: snapshot.configuredSecrets, credential: credential)
        var inbound = Inbound(call: call, route: route, dialect: Dialects.named(route.dialect), body: body, credential: credential,
                              extraSecrets: extra, scrubber: scrubber)
        // Before the app is looked up: an id cut at a NUL could read as a configured app's.
        if let nul = NULRule.problem(inPath: call.request.path) { return .refused(inbound.refusal(.badRequest(nul), now: now)) }
        let refusal = ProxyFailure.unauthorized(credential == nil ? "missing credentials" : "invalid credentials")
        switch directory.app(dialect: route.dialect, sourceApp: route.namedSourceApp(body: object), credential: credential) {
        case .success(let app):
            guard directory.authorizes(credential, for: app) else { return .refused(inbound.refusal(refusal, app: app.name, now: now)) }
            inbound.authenticated()
            if let nul = NULRule.problem(inBody: body.value) { return .refused(inbound.refusal(.badRequest(nul), app: app.name, now: now)) }
            return .admitted(inbound, app)
        case .failure(.unknownApp(let id)):
            guard directory.authenticatesAnyApp(credential, dialect: route.dialect) else { return .refused(inbound.refusal(refusal, app: id, now: now)) }
            return .refused(inbound.refusal(.notFound("app \(id) is not configured in PushBridge"), app: id, now: now))
        case .failure(.noAppNamed) where route.dialect == .pushwoosh && object == nil:
            let t = inbound.scrub(inbound.dialect.translate(route: route, parsed: body, context: TranslationContext(now: call.started / 1000)))
            return .refused(inbound.refusal(.badRequest(t.error ?? TranslationError(field: "", rule: "malformed JSON")), translation: t, now: now))
        case .failure(.noAppNamed) where route.dialect == .pushwoosh:
            return .refused(inbound.refusal(.badRequest(TranslationError(field: "application", rule: "is required")), now: now))
        case .failure:
            return .refused(inbound.refusal(refusal, now: now))
        }
    }
}
