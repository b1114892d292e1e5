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
        let ledger: Placement.Ledger
        do {
            ledger = try await read(Self.activityIds(of: translation), app: app.name)
        } catch {
            log.error("activity ledger read failed; request not forwarded", ["request_id": .string(inbound.requestId), "error": .string("\(error)")])
            return .refused(inbound.refusal(.unavailable("the activity ledger cannot be read, so where this activity lives is not known; nothing was sent; retry shortly"),
                                            translation: translation, app: app.name, now: clock()))
        }
        var input = Placement.Input(mode: mode, shadow: app.shadow, ledger: ledger, legacyConfigured: legacyBase != nil,
                                    sendable: translation.error == nil && translation.schedule == nil,
                                    sampled: mode == .shadow && app.shadow.map(ShadowMode.sampled) == true)
        if mode == .rollout, ledger == .notAsked, let settings = app.rollout {
            input.rollout = rollout(translation, app: app, settings: settings)
            input.rolloutFallback = settings.fallbackToLegacy && translation.error == nil && translation.schedule == nil
        }
        return .placed(ModeRequest(inbound: inbound, translation: translation, app: app, legacyBase: legacyBase, placement: .decide(input)))
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

    /// The activity ids of an update or end whose translation stands; nil for a start, a
    /// refused translation, or requests without ids (the ledger is then not asked).
    static func activityIds(of translation: Translation) -> [String]? {
        guard translation.error == nil, !translation.requests.isEmpty else { return nil }
        var ids: [String] = []
        for request in translation.requests {
            guard case .update = request.payload, let id = request.activityId else { return nil }
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    /// Where the activities live: one holder when all are known (activities on different
    /// sides count as held by both), unknown when any is not.
    private func read(_ ids: [String]?, app: String) async throws -> Placement.Ledger {
        guard let ids else { return .notAsked }
        guard let activities else { return .unknown }
        var holders = Set<ActivityHolder>()
        let now = clock()
        for id in ids {
            guard let record = try await activities.record(app: app, activityId: id, now: now) else { return .unknown }
            holders.insert(record.holder)
        }
        return .held(holders.count == 1 ? holders.first ?? .both : .both)
    }
}
