import PushBridgeCore

extension ProxyService {
    /// `observe` mode: the original request goes to the legacy provider and its answer comes
    /// back byte for byte; the translation is made, checked against OpenPush's rules and
    /// audited with its findings; nothing goes to OpenPush.
    func observe(_ inbound: Inbound, translation: Translation, app: AppConfiguration, snapshot: ProxySnapshot) async -> HTTPResponse {
        guard let base = snapshot.legacy[inbound.route.dialect] else {
            return await refuse(inbound, .internal("observe mode needs legacy.\(inbound.route.dialect.rawValue) in the configuration"), app: app.name)
        }
        let violations = translation.requests.flatMap(\.violations)
        var audited = translation
        audited.findings += violations.map { Finding(field: $0.field, kind: .caveat, message: "OpenPush would reject this: \($0.field) \($0.rule)") }
        if let refused = await begin(inbound, translation: audited, app: app) { return refused }
        let answer = await forwardToLegacy(inbound, base: base)
        var verdict = Self.observeMessage
        if let error = translation.error { verdict += "; OpenPush would refuse the translation: \(error.message)" }
        if !violations.isEmpty { verdict += "; \(violations.count) OpenPush rule violation(s)" }
        await complete(inbound, legacyCompletion(inbound, answer, outcome: .translated, message: verdict), app: app)
        return answer.response
    }

    /// How an observe row's `error_message` starts (readiness tells legacy answers from OpenPush's by it).
    static let observeMessage = "observe: nothing was sent to OpenPush"
    /// The `error_message` of a row the legacy provider answered as the shadow-mode primary.
    static let legacyPrimaryMessage = "shadow: the legacy provider answered; OpenPush is the shadow"

    /// The audit completion of a request the legacy provider answered.
    func legacyCompletion(_ inbound: Inbound, _ answer: LegacyForwarder.Answer, outcome: AuditOutcome, message: String) -> AuditCompletion {
        let body = ShadowRedaction.body(answer.response.body, scrubber: inbound.scrubber)
        return AuditCompletion(
            finishedAt: deps.clock(), outcome: answer.status == nil ? .failed : outcome, upstreamStatus: answer.status, upstreamBody: body,
            upstreamLatencyMs: answer.latencyMs, attempts: [answer.attempt],
            responseStatus: answer.response.status, responseBody: body, errorMessage: answer.error.map { "\(message); legacy provider: \($0)" } ?? message)
    }

    /// Forwards the caller's request to the legacy provider as is; a transport failure's
    /// curl text (which names the provider's address) goes to the log here and nowhere else.
    func forwardToLegacy(_ inbound: Inbound, base: String, timeout: Duration? = nil) async -> LegacyForwarder.Answer {
        let answer = await deps.legacy.forward(inbound.request, baseURL: base, timeout: timeout, now: deps.clock())
        if let detail = answer.errorDetail {
            deps.log.warning("legacy provider call failed", ["request_id": .string(inbound.requestId), "error": .string(detail)])
        }
        return answer
    }
}
