import PushBridgeCore

extension ProxyService {
    /// How long an answer waits for its audit completion, retries included: well inside the
    /// 2 s the handler's deadline keeps past the delivery budget.
    static let completionBudget: Duration = .milliseconds(1500)

    /// Completes the row; returns the answer to send. The completion is retried within
    /// ``completionBudget``. If it still cannot be written, it is handed to the background
    /// reconciler, and a 2xx `answer` of a send (`ids` not nil: OpenPush's ids) becomes the
    /// dialect's 500 saying that the send happened and the audit failed, so the caller may
    /// retry with the same idempotency key; the reconciler then records that 500 as the
    /// answer given.
    func settle(_ call: Call, _ completion: AuditCompletion, answer: HTTPResponse, route: InboundRoute?, ids: [String]?) async -> HTTPResponse {
        if await finishWithinBudget(call.requestId, completion) { return answer }
        deps.log.error("audit completion failed; retrying in the background", ["request_id": .string(call.requestId)])
        var late = completion
        var sent = answer
        if let ids, let route, (200..<300).contains(answer.status) {
            let listed = ids.isEmpty ? "" : " (OpenPush id \(ids.joined(separator: ", ")))"
            let message = "the send reached OpenPush\(listed) but its audit record could not be written; retrying with the same idempotency key is safe"
            let truth = HTTPResponse(dialect: Dialects.named(route.dialect).render(failure: .internal(message), route: route))
            late.responseStatus = truth.status
            late.responseBody = String(decoding: truth.body, as: UTF8.self)
            late.errorMessage = "answered \(truth.status) instead of \(answer.status): the audit completion could not be written within \(Self.completionBudget)"
            sent = truth
        }
        lateCompletions.add(call.requestId, late)
        return sent
    }

    /// Tries to complete the row until it is written or ``completionBudget`` passes (an
    /// attempt stuck on a locked file counts against the budget; it may still land later, and
    /// the reconciler's write, queued after it, then corrects it).
    func finishWithinBudget(_ requestId: String, _ completion: AuditCompletion) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: Self.completionBudget)
        var pause: Duration = .milliseconds(25)
        while true {
            let audit = deps.audit
            let written = await DeadlineRace.shared.race(until: deadline) { done in
                audit.finish(requestId, completion) { done((try? $0.get()) != nil) }
            }
            if written { return true }
            guard ContinuousClock.now.advanced(by: pause) < deadline else { return false }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(400))
        }
    }
}
