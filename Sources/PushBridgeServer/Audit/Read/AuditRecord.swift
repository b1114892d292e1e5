import PushBridgeCore

/// One line of `audit list`: the columns a person scans.
public struct AuditSummary: Sendable, Equatable {
    /// The request id.
    public var requestId: String
    /// Arrival, Unix milliseconds.
    public var receivedAt: Int64
    /// Dialect, route, app, event as stored (nil when unknown).
    public var dialect: String?
    /// The route.
    public var route: String?
    /// The source app.
    public var sourceApp: String?
    /// The event.
    public var event: String?
    /// The outcome as stored (a newer build may write one this build does not know).
    public var outcome: String
    /// The status the caller got.
    public var responseStatus: Int?
    /// Upstream latency, milliseconds.
    public var upstreamLatencyMs: Double?
    /// Findings.
    public var findingCount: Int
    /// The configured app's name; nil when no app accepted the request.
    public var appName: String?
}

/// A whole row with its findings: `audit show`.
public struct AuditRecord: Sendable, Equatable {
    /// What was known before forwarding. `dialect`/`route` are nil when unknown to this build.
    public var entry: AuditEntry
    /// The outcome as stored.
    public var outcome: String
    /// When it finished, Unix milliseconds (nil while pending).
    public var finishedAt: Int64?
    /// OpenPush's status.
    public var upstreamStatus: Int?
    /// OpenPush's body (truncated).
    public var upstreamBody: String?
    /// Upstream latency, milliseconds.
    public var upstreamLatencyMs: Double?
    /// The attempts, as stored JSON text.
    public var attempts: String?
    /// The status the caller got.
    public var responseStatus: Int?
    /// The body the caller got (truncated).
    public var responseBody: String?
    /// Why it failed.
    public var errorMessage: String?
}
