import PushBridgeCore

/// The outermost mode: what the request changed in the activity ledger rides on its audit
/// completion (``AuditCompletion/ledger``), written in the same commit as the row.
struct LedgerMode: Mode {
    /// The modes the placement chose.
    let inner: any Mode
    /// Unix milliseconds now.
    let clock: @Sendable () -> Int64

    func run(_ request: ModeRequest) async -> Outcome {
        var outcome = await inner.run(request)
        guard var completion = outcome.completion, let side = outcome.answeredBy else { return outcome }
        completion.ledger = Self.changes(request, reached: outcome.reached, alongside: outcome.alongsideReached, answeredBy: side, now: clock())
        if !completion.ledger.isEmpty { outcome.completion = completion }
        return outcome
    }

    /// The ledger changes of a request whose answer came from `answeredBy`: a start a side
    /// accepted is `started` on the side(s) that accepted it (in shadow: the primary, the side
    /// whose audience is real); an update or end that reached the activity's holder is
    /// `updated` or `ended` (by its event); an update of an activity the ledger had never seen
    /// that a side accepted is learned as `started` there (its start time is when it was first
    /// seen), so the next update goes straight to it.
    static func changes(_ request: ModeRequest, reached: [String], alongside: [String], answeredBy side: Side, now: Int64) -> [ActivityLedgerChange] {
        let (app, dialect, requestId) = (request.app.name, request.inbound.route.dialect, request.inbound.requestId)
        var changes: [ActivityLedgerChange] = []
        var seen = Set<String>()
        for translated in request.translation.requests {
            guard let id = translated.activityId, !seen.contains(id) else { continue }
            let (here, there) = (reached.contains(id), alongside.contains(id))
            guard here || there else { continue }
            seen.insert(id)
            if case .start = translated.payload {
                let holder: ActivityHolder = here && there ? .both : (here ? side.holder : side.other.holder)
                changes.append(.started(ActivityRecord(app: app, activityId: id, dialect: dialect, holder: holder, startedAt: now,
                                                       cohortKey: request.placement.rollout?.cohortKey, requestId: requestId)))
                continue
            }
            let ended = translated.event == "end"
            switch request.placement.basis {
            case .holder:
                changes.append(ended ? .ended(app: app, activityId: id, at: now) : .updated(app: app, activityId: id, at: now))
            case .unknownActivity, .mode:
                guard !ended, here else { continue }
                changes.append(.started(ActivityRecord(app: app, activityId: id, dialect: dialect, holder: side.holder, startedAt: now,
                                                       lastUpdateAt: now, requestId: requestId)))
            }
        }
        return changes
    }
}
