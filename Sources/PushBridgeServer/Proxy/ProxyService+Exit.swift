import PushBridgeCore

extension ProxyService {
    /// The one exit every answer leaves through: the audit row written or completed (committed
    /// before the caller is answered; a completion is retried, see ``settle(_:_:answer:route:ids:)``),
    /// the request id header (replacing any the answer carried), the access line, the request metric.
    ///
    /// The handler's answers claim the request's ticket first
    /// (``RequestEnding/Event/handlerAtExit``). One the server already answered itself (its
    /// handler deadline passed, a stop, ``answer(_:to:)``) leaves with the server's answer
    /// instead: the handler only adds how it ended to the server's row (``overtaken(_:_:by:)``).
    func exit(_ call: Call, _ outcome: consuming Outcome) async -> HTTPResponse {
        if case .joinServerAnswer(let failure)? = call.request.ticket?.on(.handlerAtExit) { return await overtaken(call, outcome, by: failure) }
        return await leave(call, consume outcome)
    }

    /// The exit itself, for the handler's answers and the server's own alike.
    /// The outcome is taken (consumed): its answer's headers become the caller's answer's own,
    /// so the request id header is appended where they are, in the room the answer keeps for it
    /// (``HTTPResponse/init(dialect:)``), not into a copy (issue 31).
    func leave(_ call: Call, _ outcome: consuming Outcome) async -> HTTPResponse {
        var outcome = outcome
        let scrubber = outcome.scrubber
        var response = outcome.answer
        // The outcome's share of the headers let go (nothing below reads the outcome's answer).
        outcome.answer.headers = []
        if let scrubber { response = scrubber.scrub(response) }
        switch outcome.audit {
        case .record(let entry, let completion):
            if (try? await deps.audit.record(entry, Self.answered(completion, response, scrubber, sent: outcome.answerSent))) == nil {
                deps.log.error("audit write failed", ["request_id": .string(call.requestId)])
            }
        case .complete(let completion):
            response = await settle(call, Self.answered(completion, response, scrubber), answer: response, route: outcome.route, ids: outcome.acceptedIds)
        case .completeOrRecord(let entry, let completion):
            let answered = Self.answered(completion, response, scrubber)
            do {
                try await deps.audit.finish(call.requestId, answered)
            } catch AuditError.unknownRequest {
                if (try? await deps.audit.record(entry, answered)) == nil { deps.log.error("audit write failed", ["request_id": .string(call.requestId)]) }
            } catch {
                deps.log.error("audit write failed", ["request_id": .string(call.requestId)])
            }
        case .done:
            break
        }
        // PushBridge's id is the only one: a legacy provider's answer may carry its own.
        // Looked for first: removing in place would copy the headers (shared with the
        // outcome's answer) even when there is none, and the append below copies them again.
        if response.headers.contains(where: { $0.name.isASCIICaseInsensitive("x-pushbridge-request-id") }) {
            response.headers.removeAll { $0.name.isASCIICaseInsensitive("x-pushbridge-request-id") }
        }
        response.headers.append((name: "X-PushBridge-Request-Id", value: call.requestId))
        deps.metrics.recordRequest(dialect: outcome.route?.dialect, route: outcome.route?.kind, status: response.status)
        if let gap = outcome.audit.completion?.outcome, gap.isPopulationGap { deps.metrics.recordPopulationGap(app: outcome.app ?? "", outcome: gap) }
        deps.log.access(requestId: call.requestId, method: call.request.method, path: call.request.path, status: response.status,
                        durationMs: Double(deps.clock() - call.started), dialect: outcome.route?.dialect, app: outcome.app,
                        outcome: outcome.log, remote: call.request.remoteAddress)
        outcome.afterAnswer?(response)
        return response
    }

    /// A handler that reached its exit after the server answered `failure` for it: once the
    /// server's row is written, the row is completed with how the handler ended (its outcome,
    /// upstream status, attempts; for a stage that wrote its own row, its outcome only) and
    /// the answer the caller got; the access line and metric are the server's, and a shadow's
    /// other side does not run. Returns the server's answer.
    private func overtaken(_ call: Call, _ outcome: Outcome, by failure: HTTPServerFailure) async -> HTTPResponse {
        await call.request.ticket?.serverRecorded()
        var sent = failure.answer(for: call.request)
        sent.headers.append((name: "X-PushBridge-Request-Id", value: call.requestId))
        let ended: AuditCompletion
        switch outcome.audit {
        case .record(_, let c), .complete(let c), .completeOrRecord(_, let c): ended = c
        case .done:
            // The stage wrote its row itself (a scheduled start): only its outcome is known here.
            ended = AuditCompletion(finishedAt: deps.clock(), outcome: AuditOutcome(rawValue: outcome.log) ?? .failed)
        }
        var late = Self.answered(ended, outcome.scrubber.map { $0.scrub(outcome.answer) } ?? outcome.answer, outcome.scrubber)
        late.errorMessage = "answered \(sent.status) because \(failure.message); the handler then ended \(late.outcome.rawValue) with \(late.responseStatus.map(String.init) ?? "no answer")"
            + (late.errorMessage.map { ": \($0)" } ?? "")
        late.responseStatus = sent.status
        late.responseBody = String(decoding: sent.body, as: UTF8.self)
        if let failure = await finishWithin(Self.completionBudget, call.requestId, late) {
            deps.log.error("audit completion after the server's own answer failed", ["request_id": .string(call.requestId), "error": .string(failure)])
        }
        return sent
    }

    /// `completion` with the caller's answer as its response, unless the stage set one or the
    /// answer is not what the caller got (`sent` false), and every text it stores scrubbed.
    private static func answered(_ completion: AuditCompletion, _ response: HTTPResponse, _ scrubber: SecretScrubber?, sent: Bool = true) -> AuditCompletion {
        var c = completion
        if sent, c.responseStatus == nil {
            c.responseStatus = response.status
            c.responseBody = String(decoding: response.body, as: UTF8.self)
        }
        return scrubber.map { $0.scrub(c) } ?? c
    }
}
