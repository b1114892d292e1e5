import PushBridgeCore

/// `shadow`, one wrapper for a primary of either side: the primary answers the caller; once the
/// answer has left, the other side gets its version on the bounded ``ShadowQueue`` (OpenPush the
/// translation the request was given, re-aimed but never re-translated; the legacy provider the
/// original request), and the two answers become a ``ShadowComparison`` row. Nothing is
/// shadowed when the primary sent nothing (a refusal) or the other side already answered (a fallback).
struct ShadowMode: Mode {
    /// The side that answers the caller (set per request by ``Modes/mode(for:)``).
    var primary: any Mode
    /// Runs the other side in the background.
    let queue: ShadowQueue
    /// Sends the OpenPush half (paced after live sends, one attempt).
    let delivery: OpenPushDelivery
    /// Sends the legacy half.
    let legacy: LegacyForwarder
    /// Stores the comparison.
    let audit: AuditStore
    /// Warning lines.
    let log: EventLog
    /// Unix milliseconds now.
    let clock: @Sendable () -> Int64
    /// One shadow call's deadline.
    let timeout: Duration
    /// The embedded sandbox's base URL, for shadows sent to `"sandbox"`.
    let sandboxBaseURL: String?

    func run(_ request: ModeRequest) async -> Outcome {
        var outcome = await primary.run(request)
        guard let side = outcome.answeredBy, side == request.placement.primary, let shadow = request.app.shadow else { return outcome }
        let before = outcome.afterAnswer
        let (latency, error, compared) = (outcome.latencyMs, outcome.errorMessage, outcome.compared)
        outcome.afterAnswer = { [self] response in
            before?(response)
            let answered = compared ?? ShadowComparison.Side(provider: Side.openpush.provider(request.inbound.route.dialect), status: response.status,
                                                              body: String(decoding: response.body, as: UTF8.self), latencyMs: latency, error: error)
            let work: ShadowQueue.Work = { [self] in
                let other = side == .legacy ? await openPushHalf(request, shadow: shadow) : await legacyHalf(request)
                await record(request, primary: answered, shadow: other)
            }
            // An OpenPush half to OpenPush itself waits for its budget in the paced lane, not in a worker.
            if side == .legacy, shadow.openPushBaseURL == nil { queue.submitPaced(work) } else { queue.submit(work) }
        }
        return outcome
    }

    /// The original request to the legacy provider, under the shadow deadline.
    private func legacyHalf(_ request: ModeRequest) async -> ShadowComparison.Side {
        let provider = Side.legacy.provider(request.inbound.route.dialect)
        guard let base = request.legacyBase else {
            return .init(provider: provider, status: nil, body: nil, latencyMs: nil, error: "not sent: legacy.\(request.inbound.route.dialect.rawValue) is not configured")
        }
        let answer = await LegacyMode.forward(request.inbound, base: base, timeout: timeout, legacy: legacy, log: log, now: clock())
        return .init(provider: provider, status: answer.status, body: ShadowRedaction.body(answer.response.body, scrubber: request.inbound.scrubber),
                     latencyMs: answer.latencyMs, error: answer.error)
    }

    /// Sends the OpenPush version to the shadow target: another base URL (a sandbox), another
    /// app or one segment when configured, through delivery's shadow entry (live first: it may
    /// be skipped, see ``OpenPushDelivery/deliverShadow(_:key:requestId:baseURL:timeout:)``).
    private func openPushHalf(_ request: ModeRequest, shadow: ShadowSettings) async -> ShadowComparison.Side {
        let (inbound, translation, app) = (request.inbound, request.translation, request.app)
        let provider = Side.openpush.provider(inbound.route.dialect)
        if let error = translation.error {
            return .init(provider: provider, status: nil, body: nil, latencyMs: nil, error: "not sent: the translation was refused: \(error.message)")
        }
        if translation.schedule != nil {
            return .init(provider: provider, status: nil, body: nil, latencyMs: nil, error: "not sent: scheduled starts are not shadowed")
        }
        var requests = translation.requests
        if let id = shadow.openPushAppId { requests = requests.map { Self.retarget($0, appId: id) } }
        if let segment = shadow.segment { requests = requests.map { Self.retarget($0, segment: segment) } }
        let base = shadow.openPushBaseURL == "sandbox" ? sandboxBaseURL : shadow.openPushBaseURL
        let key = shadow.openPushKey?.value ?? app.openPushKey?.value ?? inbound.credential ?? ""
        let attempts: [UpstreamAttempt]
        switch await delivery.deliverShadow(requests, key: key, requestId: inbound.requestId, baseURL: base, timeout: timeout) {
        case .sent(let made): attempts = made
        case .skipped(let why):
            queue.countSkipped()
            var side = ShadowComparison.Side(provider: provider, status: nil, body: nil, latencyMs: nil, error: why)
            side.skipped = true
            return side
        }
        var status: Int?, error: String?
        for attempt in attempts {
            error = attempt.error ?? error
            if status == nil || (200..<300).contains(status ?? 0) { status = attempt.status }
        }
        return .init(provider: provider, status: status, body: attempts.last?.body, latencyMs: attempts.reduce(0) { $0 + $1.latencyMs }, error: error)
    }

    /// The same request aimed at another OpenPush app (its path only: the translation stays the one made, logged and scrubbed).
    static func retarget(_ request: OpenPushRequest, appId: String) -> OpenPushRequest {
        var copy = request
        switch request.payload {
        case .start(var s):
            s.appId = appId
            copy.payload = .start(s)
        case .update(var u):
            u.appId = appId
            copy.payload = .update(u)
        }
        return copy
    }

    /// A start aimed at one segment instead of its own audience; updates are unchanged.
    static func retarget(_ request: OpenPushRequest, segment: String) -> OpenPushRequest {
        guard case .start(var s) = request.payload else { return request }
        s.includeAliases = nil
        s.includeSubscriptionIds = nil
        s.filters = nil
        s.excludedSegments = nil
        s.includedSegments = [segment]
        var copy = request
        copy.payload = .start(s)
        return copy
    }

    /// This request's draw of the shadow's `sample_percent`: uniform over 0..<100, from the
    /// thread's buffer of the system's random bytes (``ThreadRandomBytes``), not a `getrandom`
    /// of its own.
    static func sampled(_ shadow: ShadowSettings) -> Bool {
        guard shadow.samplePercent < 100 else { return true }
        guard shadow.samplePercent > 0 else { return false }
        var random = ThreadRandomBytes.Generator()
        return Int.random(in: 0..<100, using: &random) < shadow.samplePercent
    }

    /// Writes the comparison; a difference is a warning line.
    private func record(_ request: ModeRequest, primary: ShadowComparison.Side, shadow: ShadowComparison.Side) async {
        let (inbound, app) = (request.inbound, request.app)
        let c = ShadowComparison(requestId: inbound.requestId, comparedAt: clock(), dialect: inbound.route.dialect, route: inbound.route.kind,
                                 sourceApp: app.sourceAppId, primary: primary, shadow: shadow)
        if (try? await audit.record(c, receivedAt: inbound.started, appName: app.name)) == nil {
            log.error("shadow comparison could not be written", ["request_id": .string(inbound.requestId)])
        }
        if c.verdict != .bothAccepted {
            log.warning("shadow differs", ["request_id": .string(inbound.requestId), "app": .string(app.name), "verdict": .string(c.verdict.rawValue),
                                           "reason": .string(c.reason ?? "")])
        }
    }
}
