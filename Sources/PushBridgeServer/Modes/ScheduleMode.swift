import PushBridgeCore

/// A start with a future `send_date`: stored in the scheduler file, answered at once with
/// PushBridge's message ids, audited as `scheduled` (the lifecycle writes the row); the
/// scheduler sends it at its time.
struct ScheduleMode: Mode {
    /// Stores and later sends scheduled starts; nil refuses them.
    let scheduler: StartScheduler?
    /// Error lines.
    let log: EventLog
    /// Unix milliseconds now.
    let clock: @Sendable () -> Int64

    func run(_ request: ModeRequest) async -> Outcome {
        let (inbound, translation, app) = (request.inbound, request.translation, request.app)
        let refuse = { (error: TranslationError) in inbound.refusal(.badRequest(error), translation: translation, app: app.name, now: clock()) }
        guard let scheduler else {
            return refuse(TranslationError(field: "send_date", rule: "is in the future", message: "send_date is in the future and this PushBridge runs no scheduler"))
        }
        guard !app.passThroughKey else {
            return refuse(TranslationError(field: "send_date", rule: "needs a configured key",
                                           message: "scheduled starts need the app's own OpenPush key; PushBridge does not store a caller's key"))
        }
        var results: [UpstreamResult] = [], starts: [ScheduledStart] = []
        for (i, request) in translation.requests.enumerated() {
            guard let time = request.sendAt, case .start = request.payload else { return refuse(TranslationError(field: "send_date", rule: "applies to starts only")) }
            let id = ScheduledStart.makeId(requestId: inbound.requestId, ordinal: i)
            starts.append(ScheduledStart(id: id, requestId: inbound.requestId, ordinal: i, appName: app.name, request: request, time: time))
            results.append(.scheduled(id: id))
        }
        let response = HTTPResponse(dialect: inbound.dialect.render(results: results, for: translation))
        let completion = inbound.scrub(AuditCompletion(finishedAt: clock(), outcome: .scheduled, responseStatus: response.status,
                                                       responseBody: String(decoding: response.body, as: UTF8.self)))
        do {
            try await scheduler.lifecycle.store(starts, entry: inbound.entry(translation: translation, app: app), completion: completion, now: clock())
        } catch {
            log.error("scheduling failed; nothing will be sent", ["request_id": .string(inbound.requestId), "error": .string("\(error)")])
            let failure = ProxyFailure.internal("the scheduled start could not be stored; nothing will be sent")
            let answer = inbound.answer(failure)
            if error.recorded { await unschedule(inbound, starts: starts, lifecycle: scheduler.lifecycle, answer: answer, message: failure.message) }
            return Outcome(answer: answer, audit: .done, route: inbound.route, app: app.name, log: AuditOutcome.failed.rawValue, scrubber: inbound.scrubber)
        }
        scheduler.wake()
        var outcome = Outcome(answer: response, audit: .done, route: inbound.route, app: app.name, log: AuditOutcome.scheduled.rawValue, scrubber: inbound.scrubber)
        outcome.answeredBy = .openpush
        return outcome
    }

    /// The scheduled start could not be stored after its audit row said `scheduled`: the row
    /// (and its mirror rows) now say what the caller is told — failed, nothing will be sent.
    private func unschedule(_ inbound: Inbound, starts: [ScheduledStart], lifecycle: ScheduledStartLifecycle, answer: HTTPResponse, message: String) async {
        let now = clock()
        let completion = AuditCompletion(finishedAt: now, outcome: .failed, responseStatus: answer.status,
                                         responseBody: String(decoding: answer.body, as: UTF8.self), errorMessage: message)
        do {
            try await lifecycle.abandon(starts, completion: inbound.scrub(completion), now: now)
        } catch {
            log.error("audit row of an unstored scheduled start could not be corrected", ["request_id": .string(inbound.requestId)])
        }
    }
}
