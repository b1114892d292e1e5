import PushBridgeCore

/// What happened after the row was begun: ``AuditStore/finish(_:_:)`` writes it.
public struct AuditCompletion: Sendable, Equatable {
    /// When the caller was answered, Unix milliseconds.
    public var finishedAt: Int64
    /// The outcome.
    public var outcome: AuditOutcome
    /// OpenPush's status, when it answered.
    public var upstreamStatus: Int?
    /// OpenPush's body (truncated to the store's body limit when written).
    public var upstreamBody: String?
    /// Time spent upstream over all attempts, milliseconds.
    public var upstreamLatencyMs: Double?
    /// Every upstream attempt.
    public var attempts: [UpstreamAttempt]
    /// The status the caller got.
    public var responseStatus: Int?
    /// The body the caller got (truncated when written).
    public var responseBody: String?
    /// Why it failed or was rejected, for people.
    public var errorMessage: String?
    /// What this request changed in the activity ledger (a start a provider accepted, an update
    /// or end that reached its holder): written in the same transaction as the completion.
    public var ledger: [ActivityLedgerChange] = []

    /// A completion.
    public init(finishedAt: Int64, outcome: AuditOutcome, upstreamStatus: Int? = nil, upstreamBody: String? = nil,
                upstreamLatencyMs: Double? = nil, attempts: [UpstreamAttempt] = [], responseStatus: Int? = nil,
                responseBody: String? = nil, errorMessage: String? = nil) {
        self.finishedAt = finishedAt
        self.outcome = outcome
        self.upstreamStatus = upstreamStatus
        self.upstreamBody = upstreamBody
        self.upstreamLatencyMs = upstreamLatencyMs
        self.attempts = attempts
        self.responseStatus = responseStatus
        self.responseBody = responseBody
        self.errorMessage = errorMessage
    }
}
