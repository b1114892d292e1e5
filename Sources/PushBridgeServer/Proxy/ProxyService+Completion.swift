import PushBridgeCore
import Synchronization

extension ProxyService {
    /// The least an answer waits for its audit completion, retries included: well inside the
    /// 2 s the handler's deadline keeps past the delivery budget.
    static let completionBudget: Duration = .milliseconds(1500)
    /// The most an answer waits for it: a slow disk's commit (seconds on a loaded machine) is
    /// waited for, a locked or full audit is told to the caller within this.
    static let completionCeiling: Duration = .seconds(10)
    /// Left between that wait and the handler's deadline, so the handler's exit answers, not the server.
    static let completionMargin: Duration = .milliseconds(500)

    /// How long `call`'s answer may wait for its completion: what its handler's deadline
    /// leaves (``Dependencies/handlerDeadline``, less ``completionMargin``), at least
    /// ``completionBudget`` and at most ``completionCeiling``. A send OpenPush answered quickly
    /// leaves most of its delivery budget unused: a commit slowed by a busy disk then still
    /// lands in time, and the caller gets OpenPush's answer rather than a 500 saying the audit failed.
    func completionWait(for call: Call) -> Duration {
        guard let handlerDeadline = deps.handlerDeadline else { return Self.completionBudget }
        let elapsed = Duration.milliseconds(max(deps.clock() - call.started, 0))
        return max(Self.completionBudget, min(handlerDeadline - elapsed - Self.completionMargin, Self.completionCeiling))
    }

    /// Completes the row; returns the answer to send. The completion is retried within
    /// ``completionWait(for:)``. If it still cannot be written, it is handed to the background
    /// reconciler, and a 2xx `answer` of a send (`ids` not nil: OpenPush's ids) becomes the
    /// dialect's 500 saying that the send happened and the audit failed, so the caller may
    /// retry with the same idempotency key; the reconciler then records that 500 as the
    /// answer given.
    func settle(_ call: Call, _ completion: AuditCompletion, answer: HTTPResponse, route: InboundRoute?, ids: [String]?) async -> HTTPResponse {
        let wait = completionWait(for: call)
        let failure = await finishWithin(wait, call.requestId, completion)
        guard let failure else { return answer }
        deps.log.error("audit completion failed; retrying in the background", ["request_id": .string(call.requestId), "error": .string(failure)])
        var late = completion
        var sent = answer
        if let ids, let route, (200..<300).contains(answer.status) {
            let listed = ids.isEmpty ? "" : " (OpenPush id \(ids.joined(separator: ", ")))"
            let message = "the send reached OpenPush\(listed) but its audit record could not be written; retrying with the same idempotency key is safe"
            let truth = Refusal(.internal(message), route: route).response
            late.responseStatus = truth.status
            late.responseBody = String(decoding: truth.body, as: UTF8.self)
            late.errorMessage = "answered \(truth.status) instead of \(answer.status): the audit completion could not be written within \(wait): \(failure)"
            sent = truth
        }
        lateCompletions.add(call.requestId, late)
        return sent
    }

    /// Tries to complete the row until it is written or `wait` passes (an attempt stuck on a
    /// locked file counts against it; it may still land later, and the reconciler's write,
    /// queued after it, then corrects it). Returns nil once written, else why it was not: the
    /// last attempt's error, or that it was still waiting.
    func finishWithin(_ wait: Duration, _ requestId: String, _ completion: AuditCompletion) async -> String? {
        let deadline = ContinuousClock.now.advanced(by: wait)
        var pause: Duration = .milliseconds(25)
        let lastError = Mutex<String?>(nil)
        while true {
            let audit = deps.audit
            let written = await DeadlineRace.shared.race(until: deadline) { done in
                audit.finish(requestId, completion) { result in
                    if case .failure(let error) = result { lastError.withLock { $0 = String(describing: error) } }
                    done((try? result.get()) != nil)
                }
            }
            if written { return nil }
            guard ContinuousClock.now.advanced(by: pause) < deadline else {
                return lastError.withLock { $0 } ?? "its commit had not returned"
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(400))
        }
    }
}
