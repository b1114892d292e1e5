import PushBridgeCore

/// What one side of a request answered: the HTTP answer and what a comparison needs of it.
struct SideAnswer: Sendable {
    var http: HTTPResponse
    var latencyMs: Double
    var error: String?
}

extension ProxyService {
    /// `openpush` mode: audit, pace, send with safe retries, answer in the caller's dialect.
    func openPush(_ inbound: Inbound, translation: Translation, app: AppConfiguration) async -> (SideAnswer, AuditCompletion?) {
        let began = ContinuousClock.now
        if let refused = await begin(inbound, translation: translation, app: app) {
            return (SideAnswer(http: refused, latencyMs: 0, error: "audit write failed"), nil)
        }
        let key = app.passThroughKey ? (inbound.credential ?? "") : (app.openPushKey?.value ?? "")
        let results: [UpstreamResult], attempts: [UpstreamAttempt]
        switch await deps.delivery.deliver(translation.requests, key: key, requestId: inbound.requestId) {
        case .rateLimited(let seconds):
            deps.metrics.recordUpstreamAttempt(result: "paced_refused")
            let failure = ProxyFailure.rateLimited(retryAfter: seconds)
            let response = http(inbound.dialect.render(failure: failure, route: inbound.route), inbound.requestId)
            let completion = AuditCompletion(finishedAt: deps.clock(), outcome: .rejected, responseStatus: response.status,
                                             responseBody: String(decoding: response.body, as: UTF8.self),
                                             errorMessage: "PushBridge's send queue for OpenPush app \(app.openPushAppID) is full; nothing was sent")
            await complete(inbound, completion, app: app)
            return (SideAnswer(http: response, latencyMs: Self.ms(since: began), error: completion.errorMessage), completion)
        case .delivered(let r, let a):
            results = r
            attempts = a
        }
        for (number, attempt) in attempts.enumerated() {
            if let detail = attempt.errorDetail {
                deps.log.warning("openpush call failed", ["request_id": .string(inbound.requestId), "attempt": .int(Int64(number + 1)), "error": .string(detail)])
            }
            deps.metrics.observeUpstreamLatency(seconds: attempt.latencyMs / 1000)
            deps.metrics.recordUpstreamAttempt(result: attempt.status.map { "\($0 / 100)xx" } ?? "error")
        }
        let response = http(inbound.dialect.render(results: results, for: translation), inbound.requestId)
        let failed = results.contains { if case .failed = $0 { true } else { false } }
        let completion = AuditCompletion(
            finishedAt: deps.clock(), outcome: failed ? .failed : .forwarded,
            upstreamStatus: attempts.last?.status, upstreamBody: attempts.last?.body,
            upstreamLatencyMs: attempts.reduce(0) { $0 + $1.latencyMs },
            attempts: attempts,
            responseStatus: response.status, responseBody: String(decoding: response.body, as: UTF8.self),
            errorMessage: results.compactMap { if case .failed(let m) = $0 { m } else { nil } }.first)
        let ids = results.compactMap { if case .accepted(let id, _) = $0 { id } else { nil } }
        let answered = await settle(inbound, inbound.scrub(completion), app: app, answer: response, ids: ids) ?? response
        return (SideAnswer(http: answered, latencyMs: Self.ms(since: began), error: completion.errorMessage), completion)
    }

    /// A start with a future `send_date`: stored in the scheduler file, answered at once with
    /// PushBridge's message ids, audited as `scheduled`; the scheduler sends it at its time.
    func schedule(_ inbound: Inbound, translation: Translation, app: AppConfiguration) async -> HTTPResponse {
        guard let scheduler = deps.scheduler else {
            return await refuse(inbound, .badRequest(TranslationError(field: "send_date", rule: "is in the future", message: "send_date is in the future and this PushBridge runs no scheduler")),
                                translation: translation, app: app.name)
        }
        guard !app.passThroughKey else {
            return await refuse(inbound, .badRequest(TranslationError(field: "send_date", rule: "needs a configured key",
                message: "scheduled starts need the app's own OpenPush key; PushBridge does not store a caller's key")), translation: translation, app: app.name)
        }
        var results: [UpstreamResult] = [], starts: [ScheduledStart] = []
        for (i, request) in translation.requests.enumerated() {
            guard let time = request.sendAt, case .start = request.payload else {
                return await refuse(inbound, .badRequest(TranslationError(field: "send_date", rule: "applies to starts only")), translation: translation, app: app.name)
            }
            let id = ScheduledStart.makeId(requestId: inbound.requestId, ordinal: i)
            starts.append(ScheduledStart(id: id, requestId: inbound.requestId, ordinal: i, appName: app.name, request: request, time: time))
            results.append(.scheduled(id: id))
        }
        let response = http(inbound.dialect.render(results: results, for: translation), inbound.requestId)
        var entry = inbound.auditEntry(translation: translation, targetApp: app.openPushAppID)
        entry.appName = app.name
        let completion = inbound.scrub(AuditCompletion(finishedAt: deps.clock(), outcome: .scheduled, responseStatus: response.status,
                                                       responseBody: String(decoding: response.body, as: UTF8.self)))
        do {
            try await scheduler.lifecycle.store(starts, entry: entry, completion: completion, now: deps.clock())
        } catch {
            deps.log.error("scheduling failed; nothing will be sent", ["request_id": .string(inbound.requestId), "error": .string("\(error)")])
            let failure = ProxyFailure.internal("the scheduled start could not be stored; nothing will be sent")
            let answer = http(inbound.dialect.render(failure: failure, route: inbound.route), inbound.requestId)
            if error.recorded { await unschedule(inbound, starts: starts, lifecycle: scheduler.lifecycle, answer: answer, message: failure.message) }
            finishLog(inbound.requestId, inbound.request, answer.status, inbound.started, route: inbound.route, app: app.name, outcome: AuditOutcome.failed.rawValue)
            return answer
        }
        scheduler.wake()
        finishLog(inbound.requestId, inbound.request, response.status, inbound.started, route: inbound.route, app: app.name, outcome: "scheduled")
        return response
    }

    /// The scheduled start could not be stored after its audit row said `scheduled`: the row
    /// (and its mirror rows) now say what the caller is told — failed, nothing will be sent.
    private func unschedule(_ inbound: Inbound, starts: [ScheduledStart], lifecycle: ScheduledStartLifecycle, answer: HTTPResponse, message: String) async {
        let now = deps.clock()
        let completion = AuditCompletion(finishedAt: now, outcome: .failed, responseStatus: answer.status,
                                         responseBody: String(decoding: answer.body, as: UTF8.self), errorMessage: message)
        do {
            try await lifecycle.abandon(starts, completion: inbound.scrub(completion), now: now)
        } catch {
            deps.log.error("audit row of an unstored scheduled start could not be corrected", ["request_id": .string(inbound.requestId)])
        }
    }

    static func ms(since start: ContinuousClock.Instant) -> Double {
        let c = (ContinuousClock.now - start).components
        return Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15
    }
}
