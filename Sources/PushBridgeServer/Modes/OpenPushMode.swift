import PushBridgeCore

/// The OpenPush side: the translation refused in the caller's dialect, or a scheduled start
/// handed to ``ScheduleMode``, or the row begun, delivery paced with safe retries and the
/// answer in the caller's dialect; the exit completes the row before the caller is answered.
struct OpenPushMode: Mode {
    /// Begins the row.
    let audit: AuditBegin
    /// Paces, sends and retries to OpenPush.
    let delivery: OpenPushDelivery
    /// Stores scheduled starts.
    let schedule: ScheduleMode
    /// Warning lines.
    let log: EventLog
    /// Attempt metrics.
    let metrics: Metrics
    /// Unix milliseconds now.
    let clock: @Sendable () -> Int64

    func run(_ request: ModeRequest) async -> Outcome {
        let (inbound, translation, app) = (request.inbound, request.translation, request.app)
        if let error = translation.error { return inbound.refusal(.badRequest(error), translation: translation, app: app.name, now: clock()) }
        if translation.schedule != nil { return await schedule.run(request) }
        let began = ContinuousClock.now
        if let failed = await audit.begin(request) { return failed }
        let key = app.passThroughKey ? (inbound.credential ?? "") : (app.openPushKey?.value ?? "")
        let sent: OpenPushDelivery.Outcome
        if let repeatKey = delivery.repeats.key(for: translation.requests, key: key, sourceApp: app.idempotencyScope) {
            let activities = UpdateRepeats.activities(of: translation.requests, sourceApp: app.idempotencyScope)
            switch await delivery.repeats.deliver(key: repeatKey, activities: activities, requestId: inbound.requestId, send: { [delivery] in
                await delivery.deliver(translation.requests, key: key, requestId: inbound.requestId)
            }) {
            case .sent(let outcome): sent = outcome
            case .repeated(let first): return repeated(first, request, began: began)
            }
        } else {
            sent = await delivery.deliver(translation.requests, key: key, requestId: inbound.requestId)
        }
        var outcome = answer(sent, request, began: began)
        outcome.answeredBy = .openpush
        return outcome
    }

    /// What the delivery's outcome tells the caller and the audit.
    private func answer(_ sent: OpenPushDelivery.Outcome, _ request: ModeRequest, began: ContinuousClock.Instant) -> Outcome {
        let (inbound, translation, app) = (request.inbound, request.translation, request.app)
        switch sent {
        case .rateLimited(let seconds):
            metrics.recordUpstreamAttempt(result: "paced_refused")
            let completion = AuditCompletion(finishedAt: clock(), outcome: .rejected,
                                             errorMessage: "PushBridge's send queue for OpenPush app \(app.openPushAppId) is full; nothing was sent")
            return Outcome(answer: inbound.answer(.rateLimited(retryAfter: seconds)), audit: .complete(completion), route: inbound.route, app: app.name,
                           log: AuditOutcome.rejected.rawValue, latencyMs: Outcome.ms(since: began), scrubber: inbound.scrubber)
        case .pacerUnavailable:
            metrics.recordUpstreamAttempt(result: "pacer_unavailable")
            let completion = AuditCompletion(finishedAt: clock(), outcome: .rejected,
                                             errorMessage: "the shared pacing state in PostgreSQL cannot be reached; nothing was sent")
            return Outcome(answer: inbound.answer(.unavailable("the shared state (pacing) cannot be reached; nothing was sent; retry shortly")),
                           audit: .complete(completion), route: inbound.route, app: app.name,
                           log: AuditOutcome.rejected.rawValue, latencyMs: Outcome.ms(since: began), scrubber: inbound.scrubber)
        case .delivered(let results, let attempts):
            for (number, attempt) in attempts.enumerated() {
                if let detail = attempt.errorDetail {
                    log.warning("openpush call failed", ["request_id": .string(inbound.requestId), "attempt": .int(Int64(number + 1)), "error": .string(detail)])
                }
                metrics.observeUpstreamLatency(seconds: attempt.latencyMs / 1000)
                metrics.recordUpstreamAttempt(result: Metrics.attemptResult(status: attempt.status, body: attempt.body))
            }
            let failed = results.contains { if case .failed = $0 { true } else { false } }
            let completion = AuditCompletion(
                finishedAt: clock(), outcome: failed ? .failed : .forwarded,
                upstreamStatus: attempts.last?.status, upstreamBody: attempts.last?.body,
                upstreamLatencyMs: attempts.reduce(0) { $0 + $1.latencyMs }, attempts: attempts.map { Self.tagged($0) },
                errorMessage: results.compactMap { if case .failed(let m) = $0 { m } else { nil } }.first)
            var outcome = Outcome(answer: HTTPResponse(dialect: inbound.dialect.render(results: results, for: translation)), audit: .complete(completion),
                                  route: inbound.route, app: app.name, log: completion.outcome.rawValue, acceptedIds: Self.acceptedIds(results),
                                  latencyMs: Outcome.ms(since: began), scrubber: inbound.scrubber)
            outcome.reached = Self.reached(results, translation)
            outcome.unknownActivity = UnknownActivity.openPush(results)
            return outcome
        }
    }

    /// The answer to a repeat of an update sent by request `first.requestId`: its result, in
    /// this caller's dialect; nothing sent. The row says `translated` and which request sent it.
    private func repeated(_ first: UpdateRepeats.First, _ request: ModeRequest, began: ContinuousClock.Instant) -> Outcome {
        let (inbound, translation, app) = (request.inbound, request.translation, request.app)
        metrics.recordUpstreamAttempt(result: "repeat_not_sent")
        let answer: HTTPResponse, ids: [String]?
        switch first.outcome {
        case .rateLimited(let seconds):
            answer = inbound.answer(.rateLimited(retryAfter: seconds))
            ids = nil
        case .pacerUnavailable:
            answer = inbound.answer(.unavailable("the shared state (pacing) cannot be reached; nothing was sent; retry shortly"))
            ids = nil
        case .delivered(let results, _):
            answer = HTTPResponse(dialect: inbound.dialect.render(results: results, for: translation))
            ids = Self.acceptedIds(results)
        }
        let completion = AuditCompletion(finishedAt: clock(), outcome: .translated,
                                         errorMessage: "not sent: the same update (app, activity, body and key) as request \(first.requestId), answered with its result")
        var outcome = Outcome(answer: answer, audit: .complete(completion), route: inbound.route, app: app.name, log: "repeat_not_sent",
                              acceptedIds: ids, latencyMs: Outcome.ms(since: began), scrubber: inbound.scrubber)
        outcome.answeredBy = .openpush
        return outcome
    }

    /// OpenPush's message ids of the accepted results.
    private static func acceptedIds(_ results: [UpstreamResult]) -> [String] {
        results.compactMap { if case .accepted(let id, _) = $0 { id } else { nil } }
    }

    /// The activity ids of the requests OpenPush accepted (results come in the requests' order).
    static func reached(_ results: [UpstreamResult], _ translation: Translation) -> [String] {
        zip(translation.requests, results).compactMap { request, result in
            if case .accepted = result { request.activityId } else { nil }
        }
    }

    /// An attempt named as OpenPush's.
    static func tagged(_ attempt: UpstreamAttempt) -> UpstreamAttempt {
        var a = attempt
        a.provider = Side.openpush.provider(.onesignal)
        a.answered = true
        return a
    }
}
