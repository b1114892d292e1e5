import PushBridgeCore

/// An update or end of an activity both sides hold: the primary (OpenPush) answers the caller,
/// and the other side gets the request too, in the foreground, before the answer; its attempts
/// are recorded on the same row and its answer is said in the row's message when it refused.
struct AlongsideMode: Mode {
    /// The side whose answer the caller gets.
    let primary: any Mode
    /// The other side.
    let other: any Mode

    func run(_ request: ModeRequest) async -> Outcome {
        var outcome = await primary.run(request)
        guard var completion = outcome.completion, outcome.answeredBy != nil else { return outcome }
        var next = request
        next.rowBegun = true
        let also = await other.run(next)
        guard let theirs = also.completion, let side = also.answeredBy else { return outcome }
        completion.attempts += theirs.attempts.map { attempt in
            var a = attempt
            a.answered = false
            return a
        }
        if !(200..<300).contains(also.answer.status) {
            let said = "\(side.provider(request.inbound.route.dialect)), which also holds this activity, answered \(also.answer.status)"
            completion.errorMessage = completion.errorMessage.map { "\($0); \(said)" } ?? said
        }
        outcome.completion = completion
        outcome.alongsideReached = also.reached
        return outcome
    }
}
