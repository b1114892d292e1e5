import PushBridgeCore

/// `shadow` mode: one side answers the caller, the other runs on the bounded ``ShadowQueue``
/// once the answer has left, and the two answers become a ``ShadowComparison`` row.
struct ShadowMode: Sendable {
    let deps: ProxyService.Dependencies

    /// The `error_message` of a row the legacy provider answered as the shadow-mode primary.
    static let legacyPrimaryMessage = "shadow: the legacy provider answered; OpenPush is the shadow"

    /// The legacy provider as primary: it answers the caller byte for byte (plus the request
    /// id); the OpenPush version goes to the shadow target in the background.
    func legacyPrimary(_ inbound: Inbound, _ translation: Translation, app: AppConfiguration, legacyBase: String?) async -> Outcome {
        guard let base = legacyBase, let shadow = app.shadow else {
            return inbound.refusal(.internal("shadow mode needs legacy.\(inbound.route.dialect.rawValue) and the app's shadow settings"), app: app.name, now: deps.clock())
        }
        if let failed = await AuditBegin.begin(inbound, translation: translation, app: app, deps: deps) { return failed }
        let answer = await LegacyAnswer.forward(inbound, base: base, deps: deps)
        var outcome = LegacyAnswer.outcome(inbound, answer, app: app, outcome: .forwarded,
                                           message: Self.legacyPrimaryMessage, deps: deps)
        guard Self.sampled(shadow) else { return outcome }
        let primary = ShadowComparison.Side(provider: "legacy:\(inbound.route.dialect.rawValue)", status: answer.status,
                                            body: ShadowRedaction.body(answer.response.body, scrubber: inbound.scrubber),
                                            latencyMs: answer.latencyMs, error: answer.error)
        outcome.afterAnswer = { [self] _ in
            deps.shadows.submit { [self] in
                let side = await openPushSide(inbound, translation: translation, app: app, shadow: shadow)
                await record(inbound, app: app, primary: primary, shadow: side)
            }
        }
        return outcome
    }

    /// OpenPush as primary: once the caller has `primary`'s answer, the original request goes
    /// to the legacy provider in the background.
    func toLegacy(_ inbound: Inbound, app: AppConfiguration, base: String, primary: Outcome) -> Outcome {
        guard let shadow = app.shadow, Self.sampled(shadow) else { return primary }
        var outcome = primary
        let (latency, error) = (primary.latencyMs, primary.errorMessage)
        outcome.afterAnswer = { [self] response in
            let side = ShadowComparison.Side(provider: "openpush", status: response.status, body: String(decoding: response.body, as: UTF8.self),
                                             latencyMs: latency, error: error)
            let timeout = deps.shadowTimeout
            deps.shadows.submit { [self] in
                let answer = await LegacyAnswer.forward(inbound, base: base, timeout: timeout, deps: deps)
                let legacy = ShadowComparison.Side(provider: "legacy:\(inbound.route.dialect.rawValue)", status: answer.status,
                                                   body: ShadowRedaction.body(answer.response.body, scrubber: inbound.scrubber),
                                                   latencyMs: answer.latencyMs, error: answer.error)
                await record(inbound, app: app, primary: side, shadow: legacy)
            }
        }
        return outcome
    }

    /// Sends the OpenPush version to the shadow target: another base URL (a sandbox), another
    /// app or one segment when configured, through delivery's unpaced shadow entry.
    func openPushSide(_ inbound: Inbound, translation: Translation, app: AppConfiguration, shadow: ShadowSettings) async -> ShadowComparison.Side {
        let provider = "openpush"
        if let error = translation.error {
            return .init(provider: provider, status: nil, body: nil, latencyMs: nil, error: "not sent: the translation was refused: \(error.message)")
        }
        if translation.schedule != nil {
            return .init(provider: provider, status: nil, body: nil, latencyMs: nil, error: "not sent: scheduled starts are not shadowed")
        }
        var target = app
        var requests = translation.requests
        if let id = shadow.openPushAppId {
            target.openPushAppId = id
            let context = target.translationContext(now: inbound.started / 1000, requestId: inbound.requestId)
            requests = IdempotencyKeys.assign(inbound.dialect.translate(route: inbound.route, parsed: inbound.body, context: context).requests,
                                              requestId: inbound.requestId, sourceApp: app.idempotencyScope)
        }
        if let segment = shadow.segment { requests = requests.map { Self.retarget($0, segment: segment) } }
        let base = shadow.openPushBaseURL == "sandbox" ? deps.sandboxBaseURL : shadow.openPushBaseURL
        let key = shadow.openPushKey?.value ?? app.openPushKey?.value ?? inbound.credential ?? ""
        let attempts = await deps.delivery.deliverShadow(requests, key: key, requestId: inbound.requestId, baseURL: base, timeout: deps.shadowTimeout)
        var status: Int?, error: String?
        for attempt in attempts {
            error = attempt.error ?? error
            if status == nil || (200..<300).contains(status ?? 0) { status = attempt.status }
        }
        return .init(provider: provider, status: status, body: attempts.last?.body, latencyMs: attempts.reduce(0) { $0 + $1.latencyMs }, error: error)
    }

    /// A start aimed at one segment instead of its own audience; updates are unchanged.
    static func retarget(_ request: OpenPushRequest, segment: String) -> OpenPushRequest {
        guard case .start(var s) = request.payload else { return request }
        s.includeAliases = nil
        s.includeSubscriptionIds = nil
        s.filters = nil
        s.excludedSegments = nil
        s.includedSegments = [segment]
        var copy = request
        copy.payload = .start(s)
        return copy
    }

    static func sampled(_ shadow: ShadowSettings) -> Bool {
        shadow.samplePercent >= 100 || (shadow.samplePercent > 0 && Int.random(in: 0..<100) < shadow.samplePercent)
    }

    func record(_ inbound: Inbound, app: AppConfiguration, primary: ShadowComparison.Side, shadow: ShadowComparison.Side) async {
        let c = ShadowComparison(requestId: inbound.requestId, comparedAt: deps.clock(), dialect: inbound.route.dialect, route: inbound.route.kind,
                                 sourceApp: app.sourceAppId, primary: primary, shadow: shadow)
        if (try? await deps.audit.record(c)) == nil {
            deps.log.error("shadow comparison could not be written", ["request_id": .string(inbound.requestId)])
        }
        if c.verdict != .bothAccepted {
            deps.log.warning("shadow differs", ["request_id": .string(inbound.requestId), "app": .string(app.name), "verdict": .string(c.verdict.rawValue),
                                                "reason": .string(c.reason ?? "")])
        }
    }
}
