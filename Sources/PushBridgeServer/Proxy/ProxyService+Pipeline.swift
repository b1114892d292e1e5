import PushBridgeCore

/// The whole request path on one screen. Each stage is a type of its own; each returns an
/// ``Outcome``, and every answer leaves through ``ProxyService/exit(_:_:)``:
///
///     route ─▶ Admission ─▶ translate (pure core) ─▶ place (Router) ─▶ mode ─▶ exit
///       │          │              │                     │              │
///       └ UnhandledRoute   refusals        ledger unreadable    Modes.mode(for: placement):
///                                                               OpenPushMode · LegacyMode · ScheduleMode,
///                                                               wrapped by Fallback · Alongside · Shadow · Ledger
///
/// No stage hops threads on its own or assumes which thread it runs on.
extension ProxyService {
    /// Serves one request.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        deps.metrics.requestStarted()
        defer { deps.metrics.requestFinished() }
        let call = Call(request, now: deps.clock())
        if request.method == "GET", let ops = await operations(request) {
            return await exit(call, Outcome(answer: ops, audit: .done, route: nil, app: nil, log: "operations"))
        }
        let matched = InboundRoute.match(path: request.target)
        guard let route = matched, request.method == "POST" else { return await exit(call, UnhandledRoute.outcome(call, route: matched, now: deps.clock())) }
        let snapshot = deps.snapshots.snapshot
        switch Admission.admit(call, route: route, snapshot: snapshot, now: deps.clock()) {
        case .refused(let refusal):
            return await exit(call, refusal)
        case .admitted(let inbound, let app):
            let translation = translate(inbound, app: app)
            switch await router.place(inbound, translation, app: app, snapshot: snapshot) {
            case .refused(let refusal):
                return await exit(call, refusal)
            case .placed(let request):
                return await exit(call, await modes.run(request))
            }
        }
    }

    /// The pure translation, every start with its idempotency key (a caller's scoped to its
    /// source app) before anything is audited
    /// or sent; its findings logged and counted.
    func translate(_ inbound: Inbound, app: AppConfiguration) -> Translation {
        var context = app.translationContext(now: inbound.started / 1000, requestId: inbound.requestId)
        context.credentialInHeader = PresentedCredential.isInHeader(dialect: inbound.route.dialect, body: inbound.object)
        let translated = inbound.scrub(inbound.dialect.translate(route: inbound.route, parsed: inbound.body, context: context))
        let translation = IdempotencyKeys.assign(consume translated, requestId: inbound.requestId, sourceApp: app.idempotencyScope)
        let held = deps.log.findings(translation.findings, requestId: inbound.requestId, dialect: inbound.route.dialect, app: app.name, route: inbound.route.kind)
        deps.metrics.recordSuppressedLogLines(app: app.name, held)
        deps.metrics.recordFindings(translation.findings, dialect: inbound.route.dialect)
        return translation
    }
}
