import PushBridgeCore

/// `rollout` mode, for new starts: ``RolloutCohort`` places each one on OpenPush (a sticky
/// `percent` of cohort keys) or the legacy provider (the rest, every start while the app is
/// rolled back); `segment_starts` places the unsplittable ones, `both` sending to both sides.
/// The legacy side runs exactly as ``ObserveMode``, the OpenPush side exactly as
/// ``OpenPushMode`` (or ``ScheduleMode``), so percent 0 and 100 are observe without shadow
/// and openpush. A start OpenPush refuses with its documented 400 "no device has registered a
/// push-to-start token" is a population gap (`not_on_openpush`): with `fallback_to_legacy`
/// the original request goes to the legacy provider, which answers the caller. Each start a
/// provider accepted enters the ledger with its holder and its cohort key's fingerprint;
/// OpenPush's other outcomes feed the app's ``RolloutMonitor`` window.
struct RolloutMode: Sendable {
    let deps: ProxyService.Dependencies
    let observe: ObserveMode
    let openPush: OpenPushMode
    let schedule: ScheduleMode

    /// What OpenPush's documented refusal of a start with no push-to-start token says.
    static let noPushToStartToken = "no device has registered a push-to-start token"

    func run(_ inbound: Inbound, _ translation: Translation, app: AppConfiguration, settings: RolloutSettings, legacyBase: String?) async -> Outcome {
        let monitor = deps.rollouts
        let rolledBack = monitor?.rollback(of: app.name) != nil
        var deviceAlias: String?
        if case .alias(let label) = app.devices, app.dialect == .pushwoosh { deviceAlias = label }
        let placement = RolloutCohort.place(app: app.name, translation: translation, settings: settings, deviceAlias: deviceAlias, rolledBack: rolledBack)
        // A translation OpenPush cannot take goes to the legacy provider as observe would send
        // it, except at 100%, where the app behaves as openpush and refuses it.
        if translation.error != nil {
            if settings.percent == 100 && !rolledBack, let error = translation.error {
                return inbound.refusal(.badRequest(error), translation: translation, app: app.name, now: deps.clock())
            }
            return await legacy(inbound, translation, app: app, legacyBase: legacyBase, placement: placement)
        }
        switch placement.side {
        case .legacy:
            return await legacy(inbound, translation, app: app, legacyBase: legacyBase, placement: placement)
        case .openpush, .both:
            if translation.schedule != nil { return await schedule.run(inbound, translation, app: app) }
            let outcome = await openPush.run(inbound, translation, app: app)
            guard case .complete(var completion) = outcome.audit, !completion.attempts.isEmpty else { return outcome }
            let gap = Self.isPopulationGap(completion)
            if !gap { monitor?.record(app: app.name, Self.sample(completion), thresholds: deps.rolloutThresholds) }
            let openPushAccepted = completion.outcome == .forwarded && (completion.upstreamStatus.map { (200..<300).contains($0) } ?? false)
            if gap { completion.outcome = .notOnOpenPush }
            let toLegacy = placement.side == .both || (gap && settings.fallbackToLegacy)
            guard toLegacy, let base = legacyBase else {
                completion.ledger += openPushAccepted ? starts(translation, app: app, holder: .openpush, placement: placement, inbound: inbound) : []
                if gap { completion.errorMessage = (completion.errorMessage.map { $0 + "; " } ?? "") + "not_on_openpush: the start's audience has no push-to-start token on OpenPush (fallback_to_legacy is off)" }
                var answered = outcome
                answered.audit = .complete(completion)
                if gap { answered.log = AuditOutcome.notOnOpenPush.rawValue }
                return answered
            }
            let answer = await LegacyAnswer.forward(inbound, base: base, deps: deps)
            let legacyAccepted = answer.status.map { (200..<300).contains($0) } ?? false
            let holder: ActivityHolder? = switch (openPushAccepted, legacyAccepted) {
            case (true, true): .both
            case (true, false): .openpush
            case (false, true): .legacy
            case (false, false): nil
            }
            completion.attempts.append(answer.attempt)
            completion.ledger += holder.map { starts(translation, app: app, holder: $0, placement: placement, inbound: inbound) } ?? []
            if openPushAccepted {
                // segment_starts both: OpenPush's answer is the caller's; the legacy call is recorded beside it.
                completion.errorMessage = "rollout: segment start sent to both sides; legacy provider answered \(answer.status.map(String.init) ?? answer.error ?? "nothing")"
                var answered = outcome
                answered.audit = .complete(completion)
                return answered
            }
            // OpenPush did not take it: the legacy provider's answer is the caller's.
            let body = ShadowRedaction.body(answer.response.body, scrubber: inbound.scrubber)
            completion.upstreamStatus = answer.status
            completion.upstreamBody = body
            completion.upstreamLatencyMs = (completion.upstreamLatencyMs ?? 0) + answer.latencyMs
            completion.responseStatus = answer.response.status
            completion.responseBody = body
            completion.finishedAt = deps.clock()
            completion.errorMessage = (gap ? "not_on_openpush: OpenPush has no push-to-start token for the start's audience; the original request went to the legacy provider" :
                                            "OpenPush did not accept the start; the legacy provider answered")
                + (answer.error.map { "; legacy provider: \($0)" } ?? "")
            return Outcome(answer: answer.response, audit: .complete(completion), route: inbound.route, app: app.name, log: completion.outcome.rawValue,
                           latencyMs: outcome.latencyMs + answer.latencyMs, scrubber: inbound.scrubber)
        }
    }

    /// The legacy side: observe's forwarding and audit, the placement in the row's message,
    /// the start in the ledger when the provider accepted it.
    private func legacy(_ inbound: Inbound, _ translation: Translation, app: AppConfiguration, legacyBase: String?, placement: RolloutPlacement) async -> Outcome {
        var outcome = await observe.run(inbound, translation, app: app, legacyBase: legacyBase)
        guard case .complete(var completion) = outcome.audit else { return outcome }
        let why = switch placement.reason {
        case .cohort(let bucket): "rollout: cohort bucket \(bucket) is outside the percent; sent to the legacy provider"
        case .unsplittable: "rollout: no cohort key (a segment or filter start): sent to the legacy provider as segment_starts says"
        case .rolledBack: "rollout: rolled back; every new start goes to the legacy provider"
        }
        completion.errorMessage = (completion.errorMessage.map { $0 + "; " } ?? "") + why
        if completion.upstreamStatus.map({ (200..<300).contains($0) }) == true {
            completion.ledger += starts(translation, app: app, holder: .legacy, placement: placement, inbound: inbound)
        }
        outcome.audit = .complete(completion)
        return outcome
    }

    /// The ledger entries of a translation's starts held by `holder`.
    private func starts(_ translation: Translation, app: AppConfiguration, holder: ActivityHolder, placement: RolloutPlacement, inbound: Inbound) -> [ActivityLedgerChange] {
        translation.requests.compactMap { request in
            guard case .start(let start) = request.payload, let id = start.activityId else { return nil }
            return .started(ActivityRecord(app: app.name, activityId: id, dialect: app.dialect, holder: holder, startedAt: deps.clock(),
                                           cohortKey: placement.cohortKey, requestId: inbound.requestId))
        }
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
