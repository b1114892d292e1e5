/// What the admin page shows of one running app besides its readiness: where its new starts
/// go now. A figure this build does not know (a rollout percent outside a rollout, a rollback
/// state without a rollout) is nil and shows as "—".
public struct AdminAppStatus: Sendable, Equatable {
    /// The configured name.
    public var name: String
    /// Its dialect.
    public var dialect: String
    /// Its mode or stage (`observe`, `shadow`, `openpush`, …), with the routes that override it
    /// (`shadow (update: openpush)`).
    public var stage: String
    /// The configured share of cohort keys whose new starts go to OpenPush, 0–100; nil outside
    /// a rollout. A rolled-back rollout keeps it here, but its starts all go to legacy.
    public var rolloutPercent: Int?
    /// The rollout's automatic rollback state; nil when not known (or not a rollout).
    public var rollback: Rollback?

    /// Whether a rollout runs or was rolled back.
    public enum Rollback: Sendable, Equatable {
        /// Placing new starts by cohort.
        case running
        /// Rolled back at `at` (Unix ms) on `threshold`: every new start goes to the legacy provider.
        case rolledBack(at: Int64, threshold: String)

        /// How the page says it: `running`, or `rolled back at <time> (<threshold>)`.
        public var text: String {
            switch self {
            case .running: "running"
            case .rolledBack(let at, let threshold): "rolled back at \(RFC3339.format(milliseconds: at)) (\(threshold))"
            }
        }
    }

    /// A status.
    public init(name: String, dialect: String, stage: String, rolloutPercent: Int? = nil, rollback: Rollback? = nil) {
        self.name = name
        self.dialect = dialect
        self.stage = stage
        self.rolloutPercent = rolloutPercent
        self.rollback = rollback
    }

    /// The status a running app's configuration gives, with its rollout's rollback state
    /// when `rollbacks` (the stored ones) could be read: running, or since when and why it was
    /// rolled back.
    public init(_ app: AppConfiguration, rollbacks: [RolloutRollback]? = nil) {
        let overrides = app.routeModes.keys.sorted { $0.rawValue < $1.rawValue }.map { "\($0.rawValue): \(app.routeModes[$0]?.rawValue ?? "")" }
        let inRollout = app.mode == .rollout || app.routeModes.values.contains(.rollout)
        let rollback: Rollback? = if inRollout, let rollbacks {
            rollbacks.first { $0.app == app.name }.map { .rolledBack(at: $0.at, threshold: $0.threshold) } ?? .running
        } else {
            nil
        }
        self.init(name: app.name, dialect: app.dialect.rawValue,
                  stage: app.mode.rawValue + (overrides.isEmpty ? "" : " (\(overrides.joined(separator: ", ")))"),
                  rolloutPercent: inRollout ? app.rollout?.percent : nil, rollback: rollback)
    }
}
