/// The window an app was judged over, and why that one: since its current stage began (from
/// the stage history), the whole audit (no stage change recorded), or the `--since`/`--until`
/// asked for.
public struct ReadinessWindow: Sendable, Equatable {
    /// How the window was chosen.
    public enum Basis: String, Sendable, Equatable {
        /// Since the app's current stage began (``StageRun/began``).
        case currentStage = "current stage"
        /// The whole audit: the stage history has no change for the app.
        case wholeAudit = "whole audit"
        /// The `--since`/`--until` of the request.
        case asked
    }

    /// Received at or after, Unix ms; nil from the first row.
    public var since: Int64?
    /// Received before, Unix ms; nil to the last row.
    public var until: Int64?
    /// How it was chosen.
    public var basis: Basis
    /// The change that began the current stage (``Basis/currentStage``).
    public var began: StageChange?

    /// A window.
    public init(since: Int64?, until: Int64?, basis: Basis, began: StageChange? = nil) {
        self.since = since
        self.until = until
        self.basis = basis
        self.began = began
    }

    /// The window in words, said beside every verdict: `since 2026-06-10T12:00:00.000Z, when
    /// its stage became rollout 50% (percent by edge-1)`, `the whole audit (no stage change
    /// recorded for it)`, `since … until … (as asked)`.
    public var description: String {
        let until = self.until.map { " until \(RFC3339.format(milliseconds: $0))" } ?? ""
        switch basis {
        case .currentStage:
            let since = self.since.map { RFC3339.format(milliseconds: $0) } ?? "the start"
            let began = self.began.map { ", when its stage became \($0.stageText) (\($0.kind.rawValue) by \($0.instance ?? "an unnamed instance"))" } ?? ""
            return "since \(since)\(until)\(began)"
        case .wholeAudit:
            return "the whole audit\(until) (no stage change recorded for it)"
        case .asked:
            let since = self.since.map { "since \(RFC3339.format(milliseconds: $0))" } ?? "from the first row"
            return "\(since)\(until) (as asked)"
        }
    }
}

/// An app's current stage in the history: the change that began it and the newest change.
/// A stage begins where the modes, percent or legacy provider change, or where a rollback
/// ends (a resume); a rollback does not begin one (the traffic that tripped it stays judged).
public struct StageRun: Sendable, Equatable {
    /// The first change of the current stage.
    public var began: StageChange
    /// The newest change (the stage the app is in now, rolled back or not).
    public var latest: StageChange
    /// Whether the history shows the app in a stage before `openpush` (observe, shadow,
    /// rollout) at some time: it came to where it is through the cut-over.
    public var migrated = false

    /// A run.
    public init(began: StageChange, latest: StageChange, migrated: Bool = false) {
        self.began = began
        self.latest = latest
        self.migrated = migrated
    }

    /// Every app's current stage in `changes` (oldest first), by app name.
    public static func current(_ changes: [StageChange]) -> [String: StageRun] {
        var runs: [String: StageRun] = [:]
        for change in changes {
            let migrated = (runs[change.app]?.migrated ?? false) || change.stage.map { $0.startMode != .openpush } ?? false
            guard let run = runs[change.app] else {
                runs[change.app] = StageRun(began: change, latest: change, migrated: migrated)
                continue
            }
            let was = run.latest.stage, now = change.stage
            let resumed = (was?.rolledBack ?? false) && !(now?.rolledBack ?? false)
            if was?.key != now?.key || resumed {
                runs[change.app] = StageRun(began: change, latest: change, migrated: migrated)
            } else {
                runs[change.app]?.latest = change
                runs[change.app]?.migrated = migrated
            }
        }
        return runs
    }
}
