import PushBridgeCore

/// The placement stage: reads what it needs (the app's mode for the route, the ledger once per
/// activity of the translation, starts included (`Router+Ledger.swift`, by ``ActivityRules``),
/// the legacy URL of the request's snapshot, the shadow draw) and makes the one ``Placement``
/// the modes carry out, or refuses the request (ledger unreadable, another tenant's activity).
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
}
