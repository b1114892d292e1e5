import PushBridgeCore

/// An update or end of an activity the ledger has never seen: the mode's first side is tried;
/// if it answers that it does not know the activity (OpenPush's documented 404 "no live activity
/// with that id is open", a legacy provider's 404), the ORIGINAL request goes to the other side,
/// whose answer the caller gets. Nothing was sent on the first side, so nothing is doubled. The
/// row records both sides' attempts; an answer the second side accepted is a population gap
/// (`not_on_openpush` or `not_on_legacy`), not an error.
struct FallbackMode: Mode {
    /// The side tried first.
    let primary: any Mode
    /// The side tried next.
    let fallback: any Mode

    func run(_ request: ModeRequest) async -> Outcome {
        let first = await primary.run(request)
        guard first.unknownActivity, let tried = first.completion, let firstSide = first.answeredBy else { return first }
        var next = request
        next.rowBegun = true
        var second = await fallback.run(next)
        guard var answered = second.completion, let secondSide = second.answeredBy else { return first }
        let dialect = request.inbound.route.dialect
        answered.attempts = tried.attempts.map { attempt in
            var a = attempt
            a.answered = false
            return a
        } + answered.attempts
        answered.upstreamLatencyMs = (tried.upstreamLatencyMs ?? 0) + (answered.upstreamLatencyMs ?? 0)
        let accepted = (200..<300).contains(second.answer.status)
        // A rollout's start OpenPush refused for a reason not the caller's is no population gap.
        let refused = request.placement.rollout != nil && tried.outcome != .notOnOpenPush
        if accepted, !refused { answered.outcome = secondSide.gapOutcome }
        let what = refused ? "it refused the start for a reason that is not the caller's (fallback_to_legacy)"
            : request.placement.rollout != nil ? "it has no push-to-start token for this start's audience" : "it does not know this activity"
        let answeredWith = tried.upstreamStatus.map(String.init) ?? (tried.attempts.isEmpty ? "nothing (PushBridge's queue refused it)" : "nothing")
        let said = "\(firstSide.provider(dialect)) answered \(answeredWith): \(what)"
        // Readiness reads a row starting with a legacy message as the legacy provider's answer.
        answered.errorMessage = (refused ? "\(LegacyMode.rolloutMessage) after OpenPush: " : "")
            + "\(said); the original request went to \(secondSide.provider(dialect)), which answered \(second.answer.status)"
            + (answered.errorMessage.map { ": \($0)" } ?? "")
        second.completion = answered
        second.log = answered.outcome.rawValue
        second.latencyMs += first.latencyMs
        return second
    }
}
