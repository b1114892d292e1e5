/// One change of an app's stage, as the `stage_changes` history of the audit keeps it: when,
/// on which instance, under which configuration, what changed and the stage before and after.
public struct StageChange: Sendable, Equatable {
    /// What happened.
    public enum Kind: String, Sendable, CaseIterable {
        /// At start-up the app's stage differed from the last one recorded (or none was).
        case startUp = "start-up"
        /// A reload added the app.
        case added
        /// A reload removed the app.
        case removed
        /// A reload changed its mode or a route's mode.
        case mode
        /// A reload changed only its rollout percent.
        case percent
        /// A reload removed its dialect's legacy provider.
        case legacyRemoved = "legacy removed"
        /// A reload configured its dialect's legacy provider again.
        case legacyAdded = "legacy added"
        /// The rollout was rolled back automatically (``RolloutMonitor``).
        case rollback
        /// The rollback was ended (`pushbridge rollout resume`, or a reload that changed the rollout).
        case resume
    }

    /// When, Unix ms.
    public var at: Int64
    /// The configured app's name.
    public var app: String
    /// What happened.
    public var kind: Kind
    /// The stage after it; nil when the app is no longer configured.
    public var stage: AppStage?
    /// The stage before it in words (``AppStage/summary``); nil when not known (the first
    /// record, an added app).
    public var previous: String?
    /// What changed, in words (`rollout.percent 5 → 50`, a rollback's threshold and evidence).
    public var detail: String
    /// The instance that made or applied it (`instance_name`), or the command's host and pid.
    public var instance: String?
    /// ``ProxyConfiguration/stageFingerprint`` of the configuration in force after it; nil
    /// when the writer had none (`rollout resume` without `--config`).
    public var fingerprint: String?
    /// Its row number in the history (0 before it is written).
    public var id: Int64 = 0

    /// A change.
    public init(at: Int64, app: String, kind: Kind, stage: AppStage?, previous: String?, detail: String, instance: String?, fingerprint: String?) {
        self.at = at
        self.app = app
        self.kind = kind
        self.stage = stage
        self.previous = previous
        self.detail = detail
        self.instance = instance
        self.fingerprint = fingerprint
    }

    /// The stage after it in words, `not configured` when the app is gone.
    public var stageText: String { stage?.summary ?? "not configured" }
}
