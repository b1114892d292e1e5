import PushBridgeCore

/// One admitted, translated and placed request, as a mode runs it.
struct ModeRequest: Sendable {
    /// The request with what admission found.
    var inbound: Inbound
    /// Its translation (findings logged, idempotency keys given).
    var translation: Translation
    /// The configured app.
    var app: AppConfiguration
    /// `legacy.<dialect>` from the request's configuration snapshot; nil when not configured.
    var legacyBase: String?
    /// Where it goes.
    var placement: Placement
    /// True once a side has begun the request's audit row (a second side then only sends).
    var rowBegun = false
}

/// A mode: runs one placed request and says what happened. The sides (``OpenPushMode``,
/// ``LegacyMode``) send; the wrappers (``FallbackMode``, ``AlongsideMode``, ``ShadowMode``,
/// ``LedgerMode``) compose them as the placement says (``Modes/mode(for:)``). A mode is given
/// only what it uses and never calls into `Proxy/`.
protocol Mode: Sendable {
    /// Runs `request`; the outcome goes to the exit.
    func run(_ request: ModeRequest) async -> Outcome
}
