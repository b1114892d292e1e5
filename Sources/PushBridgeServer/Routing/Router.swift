import PushBridgeCore

/// The placement stage: reads what it needs (the app's mode for the route, the ledger once per
/// activity of an update or end, the legacy URL of the request's snapshot, the shadow draw)
/// and makes the one ``Placement`` the modes carry out.
struct Router: Sendable {
    /// Where activities live; nil when no ledger is kept (every activity is then unknown).
    let activities: (any ActivityLookup)?
    /// Error lines.
    let log: EventLog
    /// Unix milliseconds now.
    let clock: @Sendable () -> Int64
    /// Which apps' rollouts are rolled back; nil: none is.
    let rollouts: RolloutMonitor?
    /// Counts a ledger read refused because the audit's database cannot be reached; nil: not counted.
    var metrics: Metrics? = nil
    /// How long an event of an activity whose start is in flight waits for that start's
    /// outcome (``ActivityRules/Decision/waitForStart``) before it follows the start where it
    /// was sent. Default 2 s, well within a request's budget.
    var startWait: Duration = .seconds(2)

    /// What the stage decided.
    enum Decision: Sendable {
        /// The request with its placement.
        case placed(ModeRequest)
        /// Refused before anything was sent (the ledger could not be read).
        case refused(Outcome)
    }

    /// Places one admitted, translated request.
    func place(_ inbound: Inbound, _ translation: Translation, app: AppConfiguration, snapshot: ProxySnapshot) async -> Decision {
        let mode = app.mode(for: inbound.route.kind)
        let legacyBase = snapshot.legacy[inbound.route.dialect]
        let read: Ledger
        do {
            read = try await self.read(Self.activities(of: translation), app: app)
        } catch {
            log.error("activity ledger read failed; request not forwarded", ["request_id": .string(inbound.requestId), "error": .string("\(error)")])
            // The audit's database is down (every request is then refused alike), or only the ledger cannot be read.
            let unreachable = (error as? AuditError)?.isUnavailable == true
            if unreachable { metrics?.recordAuditUnavailable() }
            let message = unreachable ? "the audit database cannot be reached; nothing was sent; retry shortly"
                : "the activity ledger cannot be read, so where this activity lives is not known; nothing was sent; retry shortly"
            return .refused(inbound.refusal(.unavailable(message), translation: translation, app: app.name, now: clock()))
        }
        if let (id, owner) = read.crossTenant {
            log.warning("event of another source app's activity refused; nothing sent", ["request_id": .string(inbound.requestId), "app": .string(app.name), "owner": .string(owner)])
            return .refused(inbound.refusal(Self.crossTenant(id, dialect: inbound.route.dialect), translation: translation, app: app.name, now: clock()))
        }
        let ledger = read.ledger
        var input = Placement.Input(mode: mode, shadow: app.shadow, ledger: ledger, legacyConfigured: legacyBase != nil,
                                    sendable: translation.error == nil && translation.schedule == nil,
                                    sampled: mode == .shadow && app.shadow.map(ShadowMode.sampled) == true)
        if mode == .rollout, ledger == .notAsked, let settings = app.rollout {
            input.rollout = rollout(translation, app: app, settings: settings)
            input.rolloutFallback = settings.fallbackToLegacy && translation.error == nil && translation.schedule == nil
        }
        var placement = Placement.decide(input)
        placement.records = read.records
        return .placed(ModeRequest(inbound: inbound, translation: translation, app: app, legacyBase: legacyBase, placement: placement))
    }

    /// A rollout's placement of a new start (``RolloutCohort``). A translation OpenPush cannot
    /// take goes to the legacy provider as observe would send it, except at 100% (not rolled
    /// back), where the app behaves as openpush and refuses it.
    private func rollout(_ translation: Translation, app: AppConfiguration, settings: RolloutSettings) -> RolloutPlacement {
        let rolledBack = rollouts?.rollback(of: app.name) != nil
        var deviceAlias: String?
        if case .alias(let label) = app.devices, app.dialect == .pushwoosh { deviceAlias = label }
        var placement = RolloutCohort.place(app: app.name, translation: translation, settings: settings, deviceAlias: deviceAlias, rolledBack: rolledBack)
        if translation.error != nil { placement.side = settings.percent == 100 && !rolledBack ? .openpush : .legacy }
        return placement
    }

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
    private func read(_ ids: [(id: String, event: ActivityRules.Event)]?, app: AppConfiguration) async throws -> Ledger {
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
