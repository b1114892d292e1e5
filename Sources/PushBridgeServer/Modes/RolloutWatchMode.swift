import PushBridgeCore

/// The OpenPush side of a rollout's new start: a refusal with OpenPush's documented 400 "no
/// device has registered a push-to-start token" is a population gap (`not_on_openpush`, and
/// the answer that sends the original request on to the legacy provider when
/// `fallback_to_legacy` is on); any other outcome of a call to OpenPush goes into the app's
/// ``RolloutMonitor`` window. With `fallback_to_legacy`, a start OpenPush refused for a reason
/// that is not the caller's (5xx, 401/403, a timeout, a 429, or PushBridge's own queue full
/// past `max_wait_ms`) goes on to the legacy side too, so no start is lost while the window
/// makes up its mind.
struct RolloutWatchMode: Mode {
    /// The OpenPush side.
    let openPush: any Mode
    /// The rollback windows; nil: none.
    let rollouts: RolloutMonitor?
    /// What the window is judged by.
    let thresholds: ReadinessThresholds
    /// Whether the placement falls back to the legacy provider on a gap.
    let fallback: Bool

    /// What OpenPush's documented refusal of a start with no push-to-start token says.
    static let noPushToStartToken = "no device has registered a push-to-start token"

    func run(_ request: ModeRequest) async -> Outcome {
        var outcome = await openPush.run(request)
        guard outcome.answeredBy == .openpush, var completion = outcome.completion else { return outcome }
        guard !completion.attempts.isEmpty else {
            // PushBridge's own queue for OpenPush refused it (full past max_wait_ms, or the
            // shared pacer unreachable): nothing was sent, and it is not the caller's doing.
            outcome.unknownActivity = fallback && Self.isPacerRefusal(outcome)
            return outcome
        }
        guard Self.isPopulationGap(completion) else {
            rollouts?.record(app: request.app.name, Self.sample(completion), thresholds: thresholds)
            // A refusal that is not the caller's (a bad key, OpenPush failing or out of
            // budget) sends the start on to the legacy side while the window decides.
            outcome.unknownActivity = fallback && Self.isNotTheCallers(outcome, completion)
            return outcome
        }
        completion.outcome = .notOnOpenPush
        completion.errorMessage = "not_on_openpush: the start's audience has no push-to-start token on OpenPush"
            + (fallback ? "" : " (fallback_to_legacy is off: the caller got OpenPush's answer)")
        outcome.completion = completion
        outcome.log = AuditOutcome.notOnOpenPush.rawValue
        outcome.unknownActivity = fallback
        return outcome
    }

    /// Whether OpenPush refused the start with its documented 400 "no device has registered a
    /// push-to-start token": the audience is not on OpenPush yet.
    static func isPopulationGap(_ completion: AuditCompletion) -> Bool {
        completion.upstreamStatus == 400 && (completion.upstreamBody?.contains(noPushToStartToken) ?? false)
    }

    /// Whether OpenPush refused every request of the start for a reason that is not the
    /// caller's: no request accepted, and every attempt a transport failure or timeout (no
    /// status), a 401 or 403 (PushBridge's key), a 429 (its budget, past `max_wait_ms`) or a 5xx.
    static func isNotTheCallers(_ outcome: Outcome, _ completion: AuditCompletion) -> Bool {
        guard outcome.reached.isEmpty, outcome.acceptedIds?.isEmpty ?? true, !completion.attempts.isEmpty else { return false }
        return completion.attempts.allSatisfy { attempt in
            guard let status = attempt.status else { return true }
            return status == 401 || status == 403 || status == 429 || status >= 500
        }
    }

    /// Whether the outcome is PushBridge's own refusal before any send: its queue for the
    /// OpenPush app full past `max_wait_ms` (429) or the shared pacing state unreachable (503).
    static func isPacerRefusal(_ outcome: Outcome) -> Bool {
        outcome.completion?.outcome == .rejected && (outcome.answer.status == 429 || outcome.answer.status == 503)
    }

    /// The completion as a window sample: failed without a 2xx, answered 429 at least once.
    static func sample(_ completion: AuditCompletion) -> RolloutWindow.Sample {
        let ok = completion.outcome == .forwarded && (completion.upstreamStatus.map { (200..<300).contains($0) } ?? false)
        return RolloutWindow.Sample(at: completion.finishedAt, failed: !ok, rateLimited: completion.attempts.contains { $0.status == 429 })
    }
}
