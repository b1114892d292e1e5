import PushBridgeCore

/// What the router reads of the activity ledger: each activity's record, decided by
/// ``ActivityRules`` (a start in flight waited for, another source app's activity refused).
extension Router {
    /// The activity ids of a translation that stands, with their event; nil for a refused
    /// translation or requests without ids (the ledger is then not asked).
    static func activities(of translation: Translation) -> [(id: String, event: ActivityRules.Event)]? {
        guard translation.error == nil, !translation.requests.isEmpty else { return nil }
        var ids: [(id: String, event: ActivityRules.Event)] = []
        for request in translation.requests {
            guard let id = request.activityId else { return nil }
            if !ids.contains(where: { $0.id == id }) { ids.append((id, ActivityRules.event(of: request))) }
        }
        return ids
    }

    /// What the ledger said about a request's activities.
    struct Ledger {
        /// Where the request goes by the records.
        var ledger: Placement.Ledger
        /// The records followed, by activity id.
        var records: [String: ActivityRecord] = [:]
        /// An activity another source app holds (its id and owner): the request is refused.
        var crossTenant: (id: String, owner: String)?
    }

    /// Where the activities live, by ``ActivityRules``: one holder when every one is placed
    /// on its holder (activities on different sides count as held by both); unknown when an
    /// update's activity has no record; not asked for a start none of whose activities lives
    /// anywhere; the first held by another source app refuses the request. A start in flight
    /// is waited for (``startWait``), then followed.
    func read(_ ids: [(id: String, event: ActivityRules.Event)]?, app: AppConfiguration) async throws -> Ledger {
        guard let ids else { return Ledger(ledger: .notAsked) }
        let starts = ids.allSatisfy { $0.event == .start }
        guard let activities else { return Ledger(ledger: starts ? .notAsked : .unknown) }
        var holders = Set<ActivityHolder>()
        var result = Ledger(ledger: .notAsked)
        var unknown = false
        for (id, event) in ids {
            var record = try await activities.record(openPushApp: app.openPushAppId, app: app.name, activityId: id, now: clock())
            var decision = ActivityRules.decide(record, event: event, app: app.name, now: clock(), waited: false)
            let deadline = ContinuousClock.now + startWait
            while decision == .waitForStart {
                let waited = ContinuousClock.now >= deadline
                if !waited { try await Task.sleep(for: .milliseconds(20)) }
                record = try await activities.record(openPushApp: app.openPushAppId, app: app.name, activityId: id, now: clock())
                decision = ActivityRules.decide(record, event: event, app: app.name, now: clock(), waited: waited)
            }
            switch decision {
            case .refuseCrossTenant(let owner):
                result.crossTenant = (id, owner)
                return result
            case .onHolder(let holder):
                holders.insert(holder)
                result.records[id] = record
            case .newPlacement, .waitForStart:
                unknown = true
            }
        }
        if holders.isEmpty { result.ledger = starts ? .notAsked : .unknown } else if unknown && !starts { result.ledger = .unknown } else {
            result.ledger = .held(holders.count == 1 ? holders.first ?? .both : .both)
        }
        return result
    }

    /// The refusal of an event of an activity another source app of the same OpenPush app
    /// holds: 409, naming the caller's activity id field and the rule. The owner is not named
    /// (it is another tenant); the audit row and the log line say which app asked.
    static func crossTenant(_ id: String, dialect: DialectName) -> ProxyFailure {
        let field = switch dialect {
        case .onesignal: "activity_id"
        case .pushwoosh: "live_activity_id"
        case .buzzkit: "activityId"
        }
        return .unacceptable(status: 409, TranslationError(field: field, rule: "activity held by another source app",
                                                           message: "\(field): the Live Activity \"\(id)\" was started by another source app of the same OpenPush app; "
                                                               + "an update, end or new start of it is accepted only from the app that started it; nothing was sent"))
    }
}
