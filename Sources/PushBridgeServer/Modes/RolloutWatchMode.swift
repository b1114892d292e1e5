import PushBridgeCore

/// The OpenPush side of a rollout's new start: a refusal with OpenPush's documented 400 "no
/// device has registered a push-to-start token" is a population gap (`not_on_openpush`, and
/// the answer that sends the original request on to the legacy provider when
/// `fallback_to_legacy` is on); any other outcome of a call to OpenPush goes into the app's
/// ``RolloutMonitor`` window.
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
        guard outcome.answeredBy == .openpush, var completion = outcome.completion, !completion.attempts.isEmpty else { return outcome }
        guard Self.isPopulationGap(completion) else {
            rollouts?.record(app: request.app.name, Self.sample(completion), thresholds: thresholds)
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

    /// The completion as a window sample: failed without a 2xx, answered 429 at least once.
    static func sample(_ completion: AuditCompletion) -> RolloutWindow.Sample {
        let ok = completion.outcome == .forwarded && (completion.upstreamStatus.map { (200..<300).contains($0) } ?? false)
        return RolloutWindow.Sample(at: completion.finishedAt, failed: !ok, rateLimited: completion.attempts.contains { $0.status == 429 })
    }
}
