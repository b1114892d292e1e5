import PushBridgeCore

/// The legacy side: the original request goes to the legacy provider and its answer comes back
/// byte for byte (plus the request id). In `observe` the translation is also checked against
/// OpenPush's rules and audited with its findings, and nothing goes to OpenPush; in `shadow` this
/// is the legacy primary; in any mode it is where an activity the legacy provider holds is updated.
struct LegacyMode: Mode {
    /// Begins the row.
    let audit: AuditBegin
    /// Sends the original request.
    let legacy: LegacyForwarder
    /// Warning lines.
    let log: EventLog
    /// Unix milliseconds now.
    let clock: @Sendable () -> Int64

    /// How an observe row's `error_message` starts (readiness tells legacy answers from OpenPush's by it).
    static let observeMessage = "observe: nothing was sent to OpenPush"
    /// The `error_message` of a row the legacy provider answered as the shadow-mode primary.
    static let shadowPrimaryMessage = "shadow: the legacy provider answered; OpenPush is the shadow"
    /// The `error_message` of a row the legacy provider answered because it holds the activity.
    static let holderMessage = "affinity: the legacy provider answered; it holds this activity"
    /// The `error_message` of a rollout's start the legacy provider answered after OpenPush (a
    /// fallback) or beside it (a segment start sent to both sides).
    static let rolloutMessage = "rollout: the legacy provider answered this start"
    /// Every prefix of a row the legacy provider answered (readiness counts none of them as OpenPush's).
    static let messages = [observeMessage, shadowPrimaryMessage, holderMessage, rolloutMessage]

    func run(_ request: ModeRequest) async -> Outcome {
        let (inbound, translation, app) = (request.inbound, request.translation, request.app)
        let dialect = inbound.route.dialect.rawValue
        guard let base = request.legacyBase else {
            let need: String
            switch request.placement.mode {
            case .observe: need = "observe mode needs legacy.\(dialect) in the configuration"
            case .shadow: need = "shadow mode needs legacy.\(dialect) and the app's shadow settings"
            case .openpush: return Self.providerGone(request, now: clock())
            case .rollout: need = "rollout mode needs legacy.\(dialect) in the configuration"
            }
            return inbound.refusal(.internal(need), app: app.name, now: clock())
        }
        if request.placement.mode == .shadow, app.shadow == nil {
            return inbound.refusal(.internal("shadow mode needs legacy.\(dialect) and the app's shadow settings"), app: app.name, now: clock())
        }
        // A rollout's start placed on the legacy side is observed: nothing goes to OpenPush.
        let observing = request.placement.mode == .observe || (request.placement.primary == .legacy && request.placement.rollout != nil)
        let violations = observing ? translation.requests.flatMap(\.violations) : []
        var audited = translation
        audited.findings += violations.map { Finding(field: $0.field, kind: .caveat, message: "OpenPush would reject this: \($0.field) \($0.rule)") }
        if let failed = await audit.begin(request, translation: audited) { return failed }
        let answer = await Self.forward(inbound, base: base, legacy: legacy, log: log, now: clock())
        var message: String
        switch request.placement.mode {
        case _ where observing:
            message = Self.observeMessage
            if let error = translation.error { message += "; OpenPush would refuse the translation: \(error.message)" }
            if !violations.isEmpty { message += "; \(violations.count) OpenPush rule violation(s)" }
            if let rollout = request.placement.rollout { message += "; " + rollout.reason.legacyMessage }
        case .shadow: message = Self.shadowPrimaryMessage
        case .rollout where request.placement.rollout != nil: message = Self.rolloutMessage
        case .openpush, .rollout, .observe: message = Self.holderMessage
        }
        return Self.outcome(request, answer, outcome: observing ? .translated : .forwarded, message: message, now: clock())
    }

    /// An update or end of an activity the legacy provider holds, after `legacy.<dialect>` left
    /// the configuration: answered in the caller's dialect with what happened (nothing can reach
    /// the activity any more, so retrying will not help), audited, sent nowhere. A 404 where the
    /// dialect has one for an unknown activity (OneSignal, BuzzKit); Pushwoosh's argument error
    /// (`status_code` 210 with the message: its not-found answer would say "Access denied").
    static func providerGone(_ request: ModeRequest, now: Int64) -> Outcome {
        let dialect = request.inbound.route.dialect
        let ids = request.translation.requests.compactMap(\.activityId)
        let which = ids.isEmpty ? "this activity" : "activity " + ids.joined(separator: ", ")
        let message = "\(which) was started on the legacy provider, and legacy.\(dialect.rawValue) has been removed from PushBridge's configuration: "
            + "nothing was sent, and the activity can no longer be updated or ended through PushBridge (it ends on the phone at its stale date)"
        let failure: ProxyFailure = dialect == .pushwoosh ? .badRequest(TranslationError(field: "live_activity_id", rule: "held by a removed legacy provider", message: message))
            : .notFound(message)
        return request.inbound.refusal(failure, translation: request.translation, app: request.app.name, now: now)
    }

    /// Forwards the caller's request to the legacy provider as is; a transport failure's
    /// curl text (which names the provider's address) goes to the log here and nowhere else.
    static func forward(_ inbound: Inbound, base: String, timeout: Duration? = nil, legacy: LegacyForwarder, log: EventLog, now: Int64) async -> LegacyForwarder.Answer {
        var answer = await legacy.forward(inbound.request, baseURL: base, timeout: timeout, now: now)
        if let detail = answer.errorDetail {
            log.warning("legacy provider call failed", ["request_id": .string(inbound.requestId), "error": .string(detail)])
        }
        if answer.status == nil {
            // No answer to pass on: the caller gets its own dialect's 502, rendered by ``Refusal``.
            answer.response = inbound.answer(.upstream("the legacy provider did not answer (\(answer.error ?? "no answer")); retry shortly"))
        }
        return answer
    }

    /// The legacy answer as the caller's, with the completion of the row.
    private static func outcome(_ request: ModeRequest, _ answer: LegacyForwarder.Answer, outcome: AuditOutcome, message: String, now: Int64) -> Outcome {
        let inbound = request.inbound
        let body = ShadowRedaction.body(answer.response.body, scrubber: inbound.scrubber)
        let provider = Side.legacy.provider(inbound.route.dialect)
        var attempt = answer.attempt
        attempt.provider = provider
        attempt.answered = true
        let completion = AuditCompletion(
            finishedAt: now, outcome: answer.status == nil ? .failed : outcome, upstreamStatus: answer.status, upstreamBody: body,
            upstreamLatencyMs: answer.latencyMs, attempts: [attempt],
            responseStatus: answer.response.status, responseBody: body, errorMessage: answer.error.map { "\(message); legacy provider: \($0)" } ?? message)
        var result = Outcome(answer: answer.response, audit: .complete(completion), route: inbound.route, app: request.app.name, log: completion.outcome.rawValue,
                             latencyMs: answer.latencyMs, scrubber: inbound.scrubber)
        result.answeredBy = .legacy
        result.compared = ShadowComparison.Side(provider: provider, status: answer.status, body: body, latencyMs: answer.latencyMs, error: answer.error)
        result.unknownActivity = UnknownActivity.legacy(status: answer.status)
        if let status = answer.status, (200..<300).contains(status) { result.reached = request.translation.requests.compactMap(\.activityId) }
        return result
    }
}
