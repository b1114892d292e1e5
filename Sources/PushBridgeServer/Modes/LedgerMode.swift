import PushBridgeCore

/// The outermost mode: what the request changed in the activity ledger rides on its audit
/// completion (``AuditCompletion/ledger``), written in the same commit as the row; a start's
/// record in flight rides on its begun row (``beginChanges(_:now:)``, through ``AuditBegin``).
/// What each answer makes of a record is ``ActivityRules/effect(of:event:accepted:)``.
struct LedgerMode: Mode {
    /// The modes the placement chose.
    let inner: any Mode
    /// Unix milliseconds now.
    let clock: @Sendable () -> Int64

    func run(_ request: ModeRequest) async -> Outcome {
        var outcome = await inner.run(request)
        guard var completion = outcome.completion else { return outcome }
        completion.ledger = Self.changes(request, reached: outcome.reached, alongside: outcome.alongsideReached, answeredBy: outcome.answeredBy, now: clock())
        if !completion.ledger.isEmpty { outcome.completion = completion }
        return outcome
    }

    /// The decision the placement made for every activity of the request.
    static func decision(_ placement: Placement) -> ActivityRules.Decision {
        if case .holder(let holder) = placement.basis { return .onHolder(holder) }
        return .newPlacement
    }

    /// The records a start placed anew writes with its begun row: each activity in flight,
    /// held where it is sent (both sides when one goes alongside), so that an update racing
    /// it, through any instance, waits for its outcome. Nothing for a start on its holder, a
    /// scheduled start or a translation OpenPush cannot take.
    static func beginChanges(_ request: ModeRequest, now: Int64) -> [ActivityLedgerChange] {
        guard decision(request.placement) == .newPlacement, request.translation.error == nil, request.translation.schedule == nil else { return [] }
        let holder: ActivityHolder = request.placement.alongside != nil ? .both : request.placement.primary.holder
        var seen = Set<String>()
        return request.translation.requests.compactMap { translated in
            guard ActivityRules.event(of: translated) == .start, let id = translated.activityId, seen.insert(id).inserted else { return nil }
            return .starting(record(request, id: id, holder: holder, state: .inFlight, now: now))
        }
    }

    /// The ledger changes of a request whose answer came from `answeredBy` (nil: no side
    /// answered), by ``ActivityRules/effect(of:event:accepted:)``: a start placed anew is
    /// `started` on the side(s) that accepted it (in shadow: the primary, the side whose
    /// audience is real), or refused when none did; an update or end that reached the
    /// activity's holder is `updated` or `ended`; an update of an activity the ledger had
    /// never seen that a side accepted is `learned` there (its start time is when it was
    /// first seen), only where no record exists.
    static func changes(_ request: ModeRequest, reached: [String], alongside: [String], answeredBy side: Side?, now: Int64) -> [ActivityLedgerChange] {
        let decision = decision(request.placement)
        var changes: [ActivityLedgerChange] = []
        var seen = Set<String>()
        for translated in request.translation.requests {
            guard let id = translated.activityId, seen.insert(id).inserted else { continue }
            let (here, there) = (side != nil && reached.contains(id), side != nil && alongside.contains(id))
            let event = ActivityRules.event(of: translated)
            // An update or end names the record it followed by its own key (a row from before the
            // ledger was keyed by OpenPush app has none).
            let (app, openPushApp): (String, String?) = if let known = request.placement.records[id] {
                (known.app, known.openPushApp)
            } else {
                (request.app.name, request.app.openPushAppId)
            }
            switch ActivityRules.effect(of: decision, event: event, accepted: here || there) {
            case .none:
                continue
            case .place:
                guard let side else {
                    changes.append(.started(record(request, id: id, holder: request.placement.primary.holder, state: .refused, now: now)))
                    continue
                }
                let holder: ActivityHolder = here && there ? .both : (here ? side.holder : side.other.holder)
                changes.append(.started(record(request, id: id, holder: holder, state: here || there ? .accepted : .refused, now: now)))
            case .learn:
                guard let side, here else { continue }
                var learned = record(request, id: id, holder: side.holder, state: .accepted, now: now)
                learned.lastUpdateAt = now
                learned.cohortKey = nil
                changes.append(.learned(learned))
            case .update:
                changes.append(.updated(app: app, activityId: id, at: now, openPushApp: openPushApp))
            case .end:
                changes.append(.ended(app: app, activityId: id, at: now, openPushApp: openPushApp))
            }
        }
        return changes
    }

    /// The record of activity `id` that `request` places, keyed by its OpenPush app.
    private static func record(_ request: ModeRequest, id: String, holder: ActivityHolder, state: ActivityStartState, now: Int64) -> ActivityRecord {
        ActivityRecord(app: request.app.name, activityId: id, dialect: request.inbound.route.dialect, holder: holder, startedAt: now,
                       cohortKey: request.placement.rollout?.cohortKey, requestId: request.inbound.requestId,
                       openPushApp: request.app.openPushAppId, startState: state)
    }
}
