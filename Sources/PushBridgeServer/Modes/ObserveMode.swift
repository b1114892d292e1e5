import PushBridgeCore

/// `observe` mode: the original request goes to the legacy provider and its answer comes back
/// byte for byte (plus the request id); the translation is made, checked against OpenPush's
/// rules and audited with its findings; nothing goes to OpenPush.
struct ObserveMode: Sendable {
    let deps: ProxyService.Dependencies

    /// How an observe row's `error_message` starts (readiness tells legacy answers from OpenPush's by it).
    static let message = "observe: nothing was sent to OpenPush"

    func run(_ inbound: Inbound, _ translation: Translation, app: AppConfiguration, legacyBase: String?) async -> Outcome {
        guard let base = legacyBase else {
            return inbound.refusal(.internal("observe mode needs legacy.\(inbound.route.dialect.rawValue) in the configuration"), app: app.name, now: deps.clock())
        }
        let violations = translation.requests.flatMap(\.violations)
        var audited = translation
        audited.findings += violations.map { Finding(field: $0.field, kind: .caveat, message: "OpenPush would reject this: \($0.field) \($0.rule)") }
        if let failed = await AuditBegin.begin(inbound, translation: audited, app: app, deps: deps) { return failed }
        let answer = await LegacyAnswer.forward(inbound, base: base, deps: deps)
        var verdict = Self.message
        if let error = translation.error { verdict += "; OpenPush would refuse the translation: \(error.message)" }
        if !violations.isEmpty { verdict += "; \(violations.count) OpenPush rule violation(s)" }
        return LegacyAnswer.outcome(inbound, answer, app: app, outcome: .translated, message: verdict, deps: deps)
    }
}

/// A request the legacy provider answered: its answer as the caller's, and the completion.
enum LegacyAnswer {
    /// Forwards the caller's request to the legacy provider as is; a transport failure's
    /// curl text (which names the provider's address) goes to the log here and nowhere else.
    static func forward(_ inbound: Inbound, base: String, timeout: Duration? = nil, deps: ProxyService.Dependencies) async -> LegacyForwarder.Answer {
        let answer = await deps.legacy.forward(inbound.request, baseURL: base, timeout: timeout, now: deps.clock())
        if let detail = answer.errorDetail {
            deps.log.warning("legacy provider call failed", ["request_id": .string(inbound.requestId), "error": .string(detail)])
        }
        return answer
    }

    static func outcome(_ inbound: Inbound, _ answer: LegacyForwarder.Answer, app: AppConfiguration, outcome: AuditOutcome, message: String,
                        deps: ProxyService.Dependencies) -> Outcome {
        let body = ShadowRedaction.body(answer.response.body, scrubber: inbound.scrubber)
        let completion = AuditCompletion(
            finishedAt: deps.clock(), outcome: answer.status == nil ? .failed : outcome, upstreamStatus: answer.status, upstreamBody: body,
            upstreamLatencyMs: answer.latencyMs, attempts: [answer.attempt],
            responseStatus: answer.response.status, responseBody: body, errorMessage: answer.error.map { "\(message); legacy provider: \($0)" } ?? message)
        return Outcome(answer: answer.response, audit: .complete(completion), route: inbound.route, app: app.name, log: completion.outcome.rawValue,
                       latencyMs: answer.latencyMs, scrubber: inbound.scrubber)
    }
}
