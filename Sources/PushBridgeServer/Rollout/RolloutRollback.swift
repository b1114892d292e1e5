/// An app whose rollout was rolled back: its new starts go to the legacy provider on every
/// instance until an operator resumes it (`pushbridge rollout resume APP`, or a reload that
/// changes its `rollout`). Stored in the audit database's `rollout_rollbacks`.
public struct RolloutRollback: Sendable, Equatable {
    /// The configured app's name.
    public var app: String
    /// When it was rolled back, Unix ms.
    public var at: Int64
    /// The readiness threshold crossed (`max_openpush_error_rate`, `max_rate_limited_rate`).
    public var threshold: String
    /// What the window held when it crossed.
    public var evidence: String
    /// The instance that rolled it back (its `instance_name`), if named.
    public var instance: String?

    /// A rollback.
    public init(app: String, at: Int64, threshold: String, evidence: String, instance: String? = nil) {
        self.app = app
        self.at = at
        self.threshold = threshold
        self.evidence = evidence
        self.instance = instance
    }
}
