import PushBridgeCore

/// The stage changes between two configurations, or between the configuration at start-up
/// and the history: pure, so every rule is a test of values.
enum StageDiff {
    /// One configured app's stage.
    struct Entry: Sendable, Equatable {
        var app: String
        var dialect: DialectName
        var stage: AppStage
    }

    /// The configuration's apps, in order, each with its stage (`rolledBack` says which apps'
    /// rollouts are rolled back now).
    static func entries(_ configuration: ProxyConfiguration, rolledBack: (String) -> Bool) -> [Entry] {
        configuration.apps.map { Entry(app: $0.name, dialect: $0.dialect, stage: AppStage($0, legacy: configuration.legacy, rolledBack: rolledBack($0.name))) }
    }

    /// At start-up: one `start-up` change per app whose stage differs from the last one the
    /// history recorded for it (or that has none).
    static func startUp(_ current: [Entry], last: [String: StageChange], at: Int64, instance: String?, fingerprint: String?) -> [StageChange] {
        current.compactMap { entry in
            let recorded = last[entry.app]
            guard recorded?.stage != entry.stage else { return nil }
            let detail = recorded.map { "stage at start-up \(entry.stage.summary); last recorded \($0.stageText) at \(RFC3339.format(milliseconds: $0.at))" }
                ?? "stage at start-up \(entry.stage.summary); none recorded before"
            return StageChange(at: at, app: entry.app, kind: .startUp, stage: entry.stage, previous: recorded?.stageText, detail: detail, instance: instance, fingerprint: fingerprint)
        }
    }

    /// At a reload: per app, what the operator changed from `old` to `new` — added, removed,
    /// its mode or a route's, its rollout percent, its legacy provider removed or added — one
    /// change each, in that order. Whether a rollout is rolled back plays no part (a
    /// rollback and a resume are recorded where they happen).
    static func reload(from old: [Entry], to new: [Entry], at: Int64, instance: String?, fingerprint: String?) -> [StageChange] {
        var changes: [StageChange] = []
        func change(_ app: String, _ kind: StageChange.Kind, _ stage: AppStage?, _ previous: AppStage?, _ detail: String) {
            changes.append(StageChange(at: at, app: app, kind: kind, stage: stage, previous: previous?.summary, detail: detail, instance: instance, fingerprint: fingerprint))
        }
        for entry in new {
            guard let before = old.first(where: { $0.app == entry.app }) else {
                change(entry.app, .added, entry.stage, nil, "added by a reload at stage \(entry.stage.summary)")
                continue
            }
            var was = before.stage, now = entry.stage
            was.rolledBack = false
            now.rolledBack = false
            let modes = { (s: AppStage) in [s.mode, s.startMode] + s.routeModes.keys.sorted().compactMap { s.routeModes[$0] } }
            if modes(was) != modes(now) || was.routeModes.keys.sorted() != now.routeModes.keys.sorted() {
                change(entry.app, .mode, entry.stage, before.stage, "mode \(Self.modes(was)) → \(Self.modes(now))")
            } else if was.percent != now.percent {
                change(entry.app, .percent, entry.stage, before.stage, "rollout.percent \(was.percent.map(String.init) ?? "none") → \(now.percent.map(String.init) ?? "none")")
            }
            if was.legacy != now.legacy {
                change(entry.app, now.legacy ? .legacyAdded : .legacyRemoved, entry.stage, before.stage,
                       "legacy.\(entry.dialect.rawValue) \(now.legacy ? "configured again" : "removed: its updates and ends can reach only OpenPush")")
            }
        }
        for entry in old where !new.contains(where: { $0.app == entry.app }) {
            change(entry.app, .removed, nil, entry.stage, "removed from the configuration by a reload")
        }
        return changes
    }

    /// The stage's modes in words, without its rollback or legacy provider.
    private static func modes(_ stage: AppStage) -> String {
        var s = stage
        s.legacy = true
        return s.summary
    }
}
