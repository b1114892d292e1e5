/// The next steps that depend on the stage an app is in (from the stage history): never a
/// stage it has already passed. Without a recorded stage, the steps of the whole playbook.
enum ReadinessStageSteps {
    /// Whether the stage still asks for shadow comparisons (`min_shadowed`): not once the app
    /// is past shadow (a rollout, an `openpush` it migrated to); before, for an app configured
    /// straight in `openpush`, or when the stage is not known, it does.
    static func asksForShadow(_ run: StageRun?) -> Bool {
        guard let run, let stage = run.latest.stage else { return true }
        switch stage.startMode {
        case .observe, .shadow: return true
        case .rollout: return false
        case .openpush: return !run.migrated
        }
    }

    /// Whether the stage asks for a volume of traffic (`min_requests`, `min_shadowed`): not in
    /// `openpush` reached through the earlier stages, where nothing is left to cut over and the
    /// verdicts only watch what is sent (an app configured straight in `openpush` is asked).
    static func asksForVolume(_ run: StageRun?) -> Bool {
        guard let run, run.latest.stage?.startMode == .openpush else { return true }
        return !run.migrated
    }

    /// What a ready app does next in its stage; nil in `openpush` (the legacy verdict says what is left).
    static func ready(_ name: String, _ stage: AppStage?) -> String? {
        guard let stage else {
            return "\(name): ready to cut over: move its new starts to OpenPush (mode rollout with a small percent first, then openpush)"
        }
        switch stage.startMode {
        case .observe:
            return "\(name): ready for shadow: set its mode to shadow (with an isolated OpenPush side: docs/migration.md, step 2)"
        case .shadow:
            return "\(name): ready to cut over: move its new starts to OpenPush with a small rollout first (mode rollout, rollout.percent 5)"
        case .rollout where stage.rolledBack:
            return nil
        case .rollout where (stage.percent ?? 0) < 100:
            let percent = stage.percent ?? 0
            return "\(name): ready at rollout \(percent)%: raise rollout.percent (to \(percent < 50 ? 50 : 100)) after a day of normal traffic at \(percent)%"
        case .rollout:
            return "\(name): ready at rollout 100%: set its mode to openpush"
        case .openpush:
            return nil
        }
    }

    /// For an app without a request in its window.
    static func noTraffic(_ name: String, _ stage: AppStage?, _ t: ReadinessThresholds) -> String {
        guard let stage else { return "\(name): send its traffic through PushBridge (observe or shadow mode) until each route has \(t.minRequests) requests" }
        return "\(name): send its traffic through PushBridge until each route has \(t.minRequests) requests in its stage (\(stage.summary))"
    }

    /// For an app whose window has no call to OpenPush (its reach is not known).
    static func learnReach(_ name: String, _ stage: AppStage?) -> String {
        guard let stage else { return "\(name): send some of its traffic to OpenPush (shadow, or a rollout) to learn its reach" }
        switch stage.startMode {
        case .observe: return "\(name): move it to shadow, then a rollout, to learn OpenPush's reach"
        case .shadow: return "\(name): start a rollout (mode rollout, a small percent) to learn OpenPush's reach on its real audience"
        case .rollout where stage.rolledBack: return "\(name): resume its rolled-back rollout to learn OpenPush's reach"
        case .rollout where (stage.percent ?? 0) == 0: return "\(name): raise rollout.percent above 0 to learn OpenPush's reach"
        case .rollout, .openpush: return "\(name): keep sending its starts through PushBridge: none reached OpenPush since its stage began"
        }
    }

    /// For an app whose rollout is rolled back now: what tripped it and the command that resumes it.
    static func rolledBack(_ name: String, _ run: StageRun, database: String?) -> String {
        let at = RFC3339.format(milliseconds: run.latest.at)
        let why = run.latest.kind == .rollback ? " (\(run.latest.detail))" : ""
        return "\(name): its rollout was rolled back at \(at)\(why); once the cause is fixed: \(ReadinessCommands.rolloutResume(app: name, database: database))"
    }
}

/// The `pushbridge` commands the next steps print, each runnable as printed: `--db` names the
/// audit that was judged, and every argument is quoted for a POSIX shell when it needs to be.
enum ReadinessCommands {
    /// `value` as one shell word: itself when it holds only safe characters, else in single quotes.
    static func quoted(_ value: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-")
        if !value.isEmpty, value.allSatisfy({ safe.contains($0) }) { return value }
        return "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    private static func db(_ database: String?) -> String { database.map { " --db \(quoted($0))" } ?? "" }

    /// `pushbridge audit show --db DB ID`.
    static func auditShow(_ id: String, database: String?) -> String { "pushbridge audit show\(db(database)) \(quoted(id))" }

    /// `pushbridge audit list --db DB --app APP [--since MS]`.
    static func auditList(app: String, since: Int64?, database: String?) -> String {
        "pushbridge audit list\(db(database)) --app \(quoted(app))" + (since.map { " --since \($0)" } ?? "")
    }

    /// `pushbridge rollout resume APP --db DB`.
    static func rolloutResume(app: String, database: String?) -> String { "pushbridge rollout resume \(quoted(app))\(db(database))" }
}
