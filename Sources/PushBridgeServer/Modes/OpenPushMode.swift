import PushBridgeCore

/// `openpush` mode: the row begun, delivery paced with safe retries, the answer in the
/// caller's dialect; the exit completes the row before the caller is answered.
struct OpenPushMode: Sendable {
    let deps: ProxyService.Dependencies

    func run(_ inbound: Inbound, _ translation: Translation, app: AppConfiguration) async -> Outcome {
        let began = ContinuousClock.now
        if let failed = await AuditBegin.begin(inbound, translation: translation, app: app, deps: deps) { return failed }
        let key = app.passThroughKey ? (inbound.credential ?? "") : (app.openPushKey?.value ?? "")
        let delivery = deps.delivery
        let sent: OpenPushDelivery.Outcome
        if let repeatKey = delivery.repeats.key(for: translation.requests, key: key) {
            switch await delivery.repeats.deliver(key: repeatKey, requestId: inbound.requestId, send: {
                await delivery.deliver(translation.requests, key: key, requestId: inbound.requestId)
            }) {
            case .sent(let outcome): sent = outcome
            case .repeated(let first): return repeated(first, inbound, translation, app: app, began: began)
            }
        } else {
            sent = await delivery.deliver(translation.requests, key: key, requestId: inbound.requestId)
        }
        switch sent {
        case .rateLimited(let seconds):
            deps.metrics.recordUpstreamAttempt(result: "paced_refused")
            let completion = AuditCompletion(finishedAt: deps.clock(), outcome: .rejected,
                                             errorMessage: "PushBridge's send queue for OpenPush app \(app.openPushAppId) is full; nothing was sent")
            return Outcome(answer: inbound.answer(.rateLimited(retryAfter: seconds)), audit: .complete(completion), route: inbound.route, app: app.name,
                           log: AuditOutcome.rejected.rawValue, latencyMs: Outcome.ms(since: began), scrubber: inbound.scrubber)
        case .pacerUnavailable:
            deps.metrics.recordUpstreamAttempt(result: "pacer_unavailable")
            let completion = AuditCompletion(finishedAt: deps.clock(), outcome: .rejected,
                                             errorMessage: "the shared pacing state in PostgreSQL cannot be reached; nothing was sent")
            return Outcome(answer: inbound.answer(.unavailable("the shared state (pacing) cannot be reached; nothing was sent; retry shortly")),
                           audit: .complete(completion), route: inbound.route, app: app.name,
                           log: AuditOutcome.rejected.rawValue, latencyMs: Outcome.ms(since: began), scrubber: inbound.scrubber)
        case .delivered(let results, let attempts):
            for (number, attempt) in attempts.enumerated() {
                if let detail = attempt.errorDetail {
                    deps.log.warning("openpush call failed", ["request_id": .string(inbound.requestId), "attempt": .int(Int64(number + 1)), "error": .string(detail)])
                }
                deps.metrics.observeUpstreamLatency(seconds: attempt.latencyMs / 1000)
                deps.metrics.recordUpstreamAttempt(result: Metrics.attemptResult(status: attempt.status, body: attempt.body))
            }
            let failed = results.contains { if case .failed = $0 { true } else { false } }
            let completion = AuditCompletion(
                finishedAt: deps.clock(), outcome: failed ? .failed : .forwarded,
                upstreamStatus: attempts.last?.status, upstreamBody: attempts.last?.body,
                upstreamLatencyMs: attempts.reduce(0) { $0 + $1.latencyMs }, attempts: attempts,
                errorMessage: results.compactMap { if case .failed(let m) = $0 { m } else { nil } }.first)
            let ids = results.compactMap { if case .accepted(let id, _) = $0 { id } else { nil } }
            return Outcome(answer: ProxyService.http(inbound.dialect.render(results: results, for: translation)), audit: .complete(completion),
                           route: inbound.route, app: app.name, log: completion.outcome.rawValue, acceptedIds: ids, latencyMs: Outcome.ms(since: began),
                           scrubber: inbound.scrubber)
        }
    }

    /// The answer to a repeat of an update sent by request `first.requestId`: its result, in
    /// this caller's dialect; nothing sent. The row says `translated` and which request sent it.
    private func repeated(_ first: UpdateRepeats.First, _ inbound: Inbound, _ translation: Translation, app: AppConfiguration, began: ContinuousClock.Instant) -> Outcome {
        deps.metrics.recordUpstreamAttempt(result: "repeat_not_sent")
        let answer: HTTPResponse, ids: [String]?
        switch first.outcome {
        case .rateLimited(let seconds):
            answer = inbound.answer(.rateLimited(retryAfter: seconds))
            ids = nil
        case .pacerUnavailable:
            answer = inbound.answer(.unavailable("the shared state (pacing) cannot be reached; nothing was sent; retry shortly"))
            ids = nil
        case .delivered(let results, _):
            answer = ProxyService.http(inbound.dialect.render(results: results, for: translation))
            ids = results.compactMap { if case .accepted(let id, _) = $0 { id } else { nil } }
        }
        let completion = AuditCompletion(finishedAt: deps.clock(), outcome: .translated,
                                         errorMessage: "not sent: the same update (app, activity, body and key) as request \(first.requestId), answered with its result")
        return Outcome(answer: answer, audit: .complete(completion), route: inbound.route, app: app.name, log: "repeat_not_sent",
                       acceptedIds: ids, latencyMs: Outcome.ms(since: began), scrubber: inbound.scrubber)
    }
}

/// Writing a row before anything leaves.
enum AuditBegin {
    /// Nil once the `pending` row is committed; otherwise the outcome to answer with: nothing
    /// was sent, and nothing more can be written.
    static func begin(_ inbound: Inbound, translation: Translation, app: AppConfiguration, deps: ProxyService.Dependencies) async -> Outcome? {
        do {
            try await deps.audit.begin(inbound.entry(translation: translation, app: app))
            return nil
        } catch {
            deps.log.error("audit write failed; request not forwarded", ["request_id": .string(inbound.requestId), "error": .string("\(error)")])
            let unavailable = (error as? AuditError)?.isUnavailable == true
            if unavailable { deps.metrics.recordAuditUnavailable() }
            let failure: ProxyFailure = unavailable ? .unavailable("the audit database cannot be reached; nothing was sent; retry shortly")
                : .internal("the audit could not be written; nothing was sent")
            return Outcome(answer: inbound.answer(failure), audit: .done,
                           route: inbound.route, app: app.name, log: AuditOutcome.failed.rawValue, scrubber: inbound.scrubber)
        }
    }
}
