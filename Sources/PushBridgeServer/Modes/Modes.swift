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

    /// The side's mode.
    func side(_ side: Side) -> any Mode { side == .openpush ? openPush : legacy }

    /// What runs a request placed so.
    func mode(for placement: Placement) -> any Mode {
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
        return LedgerMode(inner: mode, clock: clock)
    }

    /// Runs one placed request.
    func run(_ request: ModeRequest) async -> Outcome {
        await mode(for: request.placement).run(request)
    }
}
