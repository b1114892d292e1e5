import PushBridgeCore

/// The modes, made once per service, and the one place a ``Placement`` becomes the chain the
/// pipeline runs: the primary side, wrapped by a fallback, a side alongside and a shadow as
/// the placement says, and the ledger's changes around it all.
struct Modes: Sendable {
    /// The OpenPush side.
    let openPush: OpenPushMode
    /// The legacy side.
    let legacy: LegacyMode
    /// The shadow wrapper, its primary set per request.
    let shadow: ShadowMode
    /// Unix milliseconds now.
    let clock: @Sendable () -> Int64
    /// Where a rollout's OpenPush outcomes go; nil: no rollback.
    let rollouts: RolloutMonitor?
    /// What a rollout's window is judged by.
    let rolloutThresholds: ReadinessThresholds
    /// The two sides as `any Mode`, boxed once here: an ``OpenPushMode`` or a ``LegacyMode``
    /// does not fit an existential's inline room, so each made per request was an allocation.
    private let openPushSide: any Mode, legacySide: any Mode

    /// The modes of a service.
    init(openPush: OpenPushMode, legacy: LegacyMode, shadow: ShadowMode, clock: @escaping @Sendable () -> Int64,
         rollouts: RolloutMonitor?, rolloutThresholds: ReadinessThresholds) {
        self.openPush = openPush
        self.legacy = legacy
        self.shadow = shadow
        self.clock = clock
        self.rollouts = rollouts
        self.rolloutThresholds = rolloutThresholds
        openPushSide = openPush
        legacySide = legacy
    }

    /// The side's mode.
    func side(_ side: Side) -> any Mode { side == .openpush ? openPushSide : legacySide }

    /// What runs a request placed so: ``chain(for:)`` inside the ledger's changes.
    func mode(for placement: Placement) -> any Mode {
        LedgerMode(inner: chain(for: placement), clock: clock)
    }

    /// The sides a request placed so runs, as the placement wraps them (the ledger's changes
    /// around them are ``mode(for:)``'s).
    func chain(for placement: Placement) -> any Mode {
        var mode = side(placement.primary)
        if placement.rollout != nil, placement.primary == .openpush {
            mode = RolloutWatchMode(openPush: mode, rollouts: rollouts, thresholds: rolloutThresholds, fallback: placement.fallback != nil)
        }
        if let fallback = placement.fallback { mode = FallbackMode(primary: mode, fallback: side(fallback)) }
        if let alongside = placement.alongside { mode = AlongsideMode(primary: mode, other: side(alongside)) }
        if placement.shadowed {
            var shadowed = shadow
            shadowed.primary = mode
            mode = shadowed
        }
        return mode
    }

    /// Runs one placed request: ``mode(for:)``'s chain, its ledger wrapper called as itself,
    /// not boxed as `any Mode` (one allocation a request).
    func run(_ request: ModeRequest) async -> Outcome {
        await LedgerMode(inner: chain(for: request.placement), clock: clock).run(request)
    }
}
