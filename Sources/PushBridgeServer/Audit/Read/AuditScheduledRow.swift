/// A scheduled request the audit has not settled: its `requests` row is still `scheduled`, or
/// one of its `scheduled_sends` mirror rows is still `pending` or `sending`. What start-up
/// reconciliation compares with the scheduler's own file (no request body: the audit holds
/// only the redacted one, and reconciliation needs none).
public struct AuditScheduledRow: Sendable, Equatable {
    /// One `scheduled_sends` mirror row.
    public struct Send: Sendable, Equatable {
        /// Its index in the request's translation.
        public var ordinal: Int
        /// Its state as the audit last recorded it.
        public var state: String
        /// The upstream attempts the audit recorded for it (empty when none were).
        public var attempts: [UpstreamAttempt]

        /// A mirror row.
        public init(ordinal: Int, state: String, attempts: [UpstreamAttempt]) {
            self.ordinal = ordinal
            self.state = state
            self.attempts = attempts
        }
    }

    /// The request id.
    public var requestId: String
    /// When the request arrived, Unix milliseconds.
    public var receivedAt: Int64
    /// The `requests` row's outcome as stored.
    public var outcome: String
    /// Its mirror rows, by ordinal.
    public var sends: [Send]
}
