import PushBridgeCore

/// Where one app stands in its migration, as its configuration and the rollback state say:
/// its mode (and per-route modes), its rollout percent, whether its rollout is rolled back
/// and whether its legacy provider is still configured. What ``StageChange`` records and
/// what readiness judges an app's stage by.
public struct AppStage: Sendable, Equatable {
    /// The app's mode (`mode`).
    public var mode: MigrationMode
    /// The mode its new starts follow (its `start` route's, `send` for BuzzKit).
    public var startMode: MigrationMode
    /// Per-route overrides (`routes`), by route name.
    public var routeModes: [String: MigrationMode]
    /// `rollout.percent` when a route is in `rollout`.
    public var percent: Int?
    /// Whether `legacy.<dialect>` is configured for the app's dialect.
    public var legacy: Bool
    /// Whether its rollout is rolled back now (its new starts go to the legacy provider).
    public var rolledBack: Bool

    /// A stage.
    public init(mode: MigrationMode, startMode: MigrationMode? = nil, routeModes: [String: MigrationMode] = [:], percent: Int? = nil, legacy: Bool, rolledBack: Bool = false) {
        self.mode = mode
        self.startMode = startMode ?? mode
        self.routeModes = routeModes
        self.percent = percent
        self.legacy = legacy
        self.rolledBack = rolledBack
    }

    /// The stage `app` is in under the legacy providers `legacy`.
    public init(_ app: AppConfiguration, legacy: ProxyConfiguration.LegacyEndpoints, rolledBack: Bool = false) {
        let inRollout = app.modesInUse.contains(.rollout)
        self.init(mode: app.mode, startMode: app.mode(for: app.dialect == .buzzkit ? .send : .start),
                  routeModes: Dictionary(uniqueKeysWithValues: app.routeModes.map { ($0.key.rawValue, $0.value) }),
                  percent: inRollout ? app.rollout?.percent : nil, legacy: legacy[app.dialect] != nil, rolledBack: inRollout && rolledBack)
    }

    /// `observe`, `shadow`, `rollout 50%`, `openpush`; route overrides after `;`
    /// (`openpush; start: rollout 50%`); ` (rolled back)`; `, legacy off` without a legacy provider.
    public var summary: String {
        var text = Self.describe(mode, percent)
        for route in routeModes.keys.sorted() { text += "; \(route): \(Self.describe(routeModes[route] ?? mode, percent))" }
        if rolledBack { text += " (rolled back)" }
        if !legacy { text += ", legacy off" }
        return text
    }

    /// The stage without its rollback: two stages with the same key differ only in whether
    /// the rollout is rolled back (a rollback does not begin a new stage; a resume does).
    var key: String { var s = self; s.rolledBack = false; return s.summary }

    /// `route=mode` pairs sorted by route, comma-separated: the `route_modes` column.
    var routeModesText: String { routeModes.keys.sorted().map { "\($0)=\(routeModes[$0]?.rawValue ?? "")" }.joined(separator: ",") }

    /// Parses ``routeModesText``; unknown pairs are skipped.
    static func routeModes(from text: String) -> [String: MigrationMode] {
        var out: [String: MigrationMode] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, let mode = MigrationMode(rawValue: parts[1]) { out[parts[0]] = mode }
        }
        return out
    }

    private static func describe(_ mode: MigrationMode, _ percent: Int?) -> String {
        mode == .rollout ? "rollout \(percent ?? 0)%" : mode.rawValue
    }

    /// Whether new starts still go (some or all) to the legacy provider in this stage.
    public var startsReachLegacy: Bool {
        switch startMode {
        case .observe, .shadow: true
        case .rollout: rolledBack || (percent ?? 0) < 100
        case .openpush: false
        }
    }
}

extension ProxyConfiguration {
    /// The fingerprint of what places requests: each app's name, dialect, OpenPush app,
    /// modes, rollout and shadow, and the legacy providers configured (their dialects and
    /// URLs as in force: the embedded doubles' by their address). `sha256:` and 12 hex digits: two instances showing
    /// the same fingerprint route alike. Secrets play no part.
    public var stageFingerprint: String {
        var lines: [String] = []
        for app in apps.sorted(by: { $0.name < $1.name }) {
            let routes = app.routeModes.map { "\($0.key.rawValue)=\($0.value.rawValue)" }.sorted()
            let rollout = app.rollout.map { "\($0.percent),\($0.cohortKey.rawValue),\($0.fallbackToLegacy),\($0.segmentStarts.rawValue)" } ?? "-"
            let shadow = app.shadow.map { "\($0.primary.rawValue),\($0.samplePercent),\($0.openPushBaseURL ?? "-"),\($0.openPushAppId ?? "-"),\($0.segment ?? "-")" } ?? "-"
            lines.append([app.name, app.dialect.rawValue, app.openPushAppId, app.mode.rawValue, routes.joined(separator: ","), rollout, shadow].joined(separator: "\u{1F}"))
        }
        for dialect in DialectName.allCases { if let url = legacy[dialect] { lines.append("legacy\u{1F}\(dialect.rawValue)\u{1F}\(url)") } }
        return Fingerprint.of(lines.joined(separator: "\n"))
    }
}
