import PushBridgeCore

/// What a stage decided for one request: the answer, what the audit still needs, and what the
/// access line says. Every stage returns one; ``ProxyService/exit(_:_:)`` carries it out.
struct Outcome: Sendable {
    /// What the audit still needs when the answer is ready.
    enum AuditWrite: Sendable {
        /// The whole row: the request never went upstream.
        case record(AuditEntry, AuditCompletion)
        /// The completion of the row the stage began.
        case complete(AuditCompletion)
        /// The completion of the row the handler began, or the whole row when it began none
        /// (the server's answer at a handler's deadline).
        case completeOrRecord(AuditEntry, AuditCompletion)
        /// Nothing more: the stage wrote the row itself (a scheduled start), or could not
        /// write it and said so in the answer.
        case done

        /// The completion it carries, nil for ``done``.
        var completion: AuditCompletion? {
            switch self {
            case .record(_, let c), .complete(let c), .completeOrRecord(_, let c): c
            case .done: nil
            }
        }
    }

    /// The answer, without the request id (the exit adds it).
    var answer: HTTPResponse
    /// What the audit still needs; a completion without a response status or body gets the
    /// answer's.
    var audit: AuditWrite
    /// The matched route, nil for an unhandled one.
    var route: InboundRoute?
    /// The configured app (or the app id the caller named), for the access line.
    var app: String?
    /// The access line's outcome.
    var log: String
    /// OpenPush's ids when the answer reports a send (a lost completion then turns a 2xx into
    /// the dialect's 500 naming them); nil for answers that sent nothing to OpenPush.
    var acceptedIds: [String]? = nil
    /// How long the mode took to have its answer, ms (a shadow comparison's primary latency).
    var latencyMs: Double = 0
    /// The request's secrets: the exit replaces them in the answer and the audit completion
    /// (nil for a request with none known, an unhandled route).
    var scrubber: SecretScrubber? = nil
    /// Runs once the answer is final and audited (a shadow goes to the other side then).
    var afterAnswer: (@Sendable (HTTPResponse) -> Void)?
    /// False for an answer that is not the one the caller got (libmicrohttpd sent its own):
    /// the audit then keeps the completion's status and no body.
    var answerSent = true
    /// The side whose answer this is; nil when PushBridge answered itself (a refusal, an audit
    /// that could not be begun) and nothing was sent.
    var answeredBy: Side? = nil
    /// The activity ids the answering side reports as accepted (a start's, an update's or an end's).
    var reached: [String] = []
    /// The activity ids the other side, sent alongside (``AlongsideMode``), reports as accepted.
    var alongsideReached: [String] = []
    /// Whether the answering side said it does not know the activity (OpenPush's documented 404
    /// "no live activity with that id is open", a legacy provider's 404).
    var unknownActivity = false
    /// The legacy provider's answer as a shadow comparison records it (status nil when none came);
    /// nil for an OpenPush answer, which the comparison takes from the answer the caller got.
    var compared: ShadowComparison.Side? = nil
}

extension Outcome {
    /// Why it failed, as its audit completion says.
    var errorMessage: String? {
        switch audit {
        case .record(_, let c), .complete(let c), .completeOrRecord(_, let c): c.errorMessage
        case .done: nil
        }
    }

    /// The completion, when the stage began a row and this completes it.
    var completion: AuditCompletion? {
        get { if case .complete(let c) = audit { c } else { nil } }
        set { if let newValue, case .complete = audit { audit = .complete(newValue) } }
    }

    /// Milliseconds since `start`.
    static func ms(since start: ContinuousClock.Instant) -> Double {
        let c = (ContinuousClock.now - start).components
        return Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15
    }
}
