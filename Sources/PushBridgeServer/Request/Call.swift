import PushBridgeCore

/// One request as it arrived: what every answer needs (the exit's id, time and access line).
struct Call: Sendable {
    /// The request.
    var request: HTTPRequest
    /// Its id: the audit row's, the `X-PushBridge-Request-Id` answer header's.
    var requestId: String
    /// When it arrived, Unix ms.
    var started: Int64
}

extension Call {
    /// `request` under the id and arrival time the server's exit gave it at its request line
    /// (``HTTPRequest/ticket``), or a new id and `now` for a request without a ticket.
    init(_ request: HTTPRequest, now: Int64) {
        self.init(request: request, requestId: request.ticket?.id ?? RequestID.make(nowMs: now), started: request.ticket?.startedMs ?? now)
    }
}

/// A request on a dialect route, with what admission found: its body parsed once (shared by
/// the credential lookup, the translation and the audit) and the credential it presents.
struct Inbound: Sendable {
    var call: Call
    var route: InboundRoute
    var dialect: any Dialect
    var body: ParsedBody
    var credential: String?
    /// Secrets swept by value besides those under secret keys: the configured OpenPush keys and
    /// the presented credential.
    var extraSecrets: [String]
    /// Every secret known for this request, replaced wherever it would leave (see Inbound+Secrets).
    var scrubber: SecretScrubber
    /// The secrets ``authenticated()`` found in the body, which `scrubber` sweeps besides
    /// `extraSecrets`: the audit's redaction sweeps with `scrubber` when it finds the same.
    var bodySecrets: Set<String> = []
    /// False until the caller is authenticated: until then the audit keeps only an excerpt.
    var isAuthenticated = false

    var request: HTTPRequest { call.request }
    var requestId: String { call.requestId }
    var started: Int64 { call.started }
    var object: JSONObject? { body.object }
    var keyFingerprint: String? { credential.map(Fingerprint.of) }

    /// The audit entry for this request (redacted by key and by value), with the translation
    /// when there is one and the configured app it was admitted for.
    func entry(translation: Translation?, app: AppConfiguration? = nil) -> AuditEntry {
        var entry = auditEntry(translation: translation, targetApp: app?.openPushAppId)
        entry.appName = app?.name
        return entry
    }

    /// The caller's answer for a failure PushBridge answers itself, in the caller's dialect
    /// (rendered by ``Refusal``, the one place that renders them).
    func answer(_ failure: ProxyFailure) -> HTTPResponse { Refusal(failure, route: route).response }

    /// A refusal: the answer in the caller's dialect and the complete `rejected` row.
    func refusal(_ failure: ProxyFailure, translation: Translation? = nil, app: String? = nil, now: Int64) -> Outcome {
        var entry = auditEntry(translation: translation)
        if entry.sourceApp == nil { entry.sourceApp = app ?? route.namedSourceApp(body: object) }
        entry.appName = app
        return Outcome(answer: answer(failure), audit: .record(entry, AuditCompletion(finishedAt: now, outcome: .rejected, errorMessage: failure.message)),
                       route: route, app: app, log: AuditOutcome.rejected.rawValue, scrubber: scrubber)
    }
}
