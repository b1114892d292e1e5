import PushBridgeCore

/// "Which side does user X get?": where a new start of one user's Live Activity goes now, with
/// its cohort bucket and why, as `pushbridge rollout where APP --user KEY` and the admin page
/// (`/admin/?where=APP&user=KEY`) print it. It is made by ``RolloutCohort/place(app:translation:settings:deviceAlias:rolledBack:)``,
/// the function the router places a rollout's starts with, on the translation of a start that
/// targets the user (`include_aliases.external_id`, which every dialect's user target becomes),
/// so the answer is the placement a real start of that user gets. Updates and ends are not
/// asked: they follow their activity to the side that holds it.
public struct RolloutWhere: Sendable, Equatable {
    /// The app's configured name.
    public var app: String
    /// The user as given (the external id).
    public var user: String
    /// The cohort key the user's start names (`alias:external_id:<user>`).
    public var cohortKey: String
    /// The key's short fingerprint, as the ledger's `cohort_key` shows it.
    public var fingerprint: String
    /// Its bucket (0–99); nil when the app's `cohort_key` kind does not split on it.
    public var bucket: Int?
    /// The mode the app's starts are in.
    public var mode: MigrationMode
    /// The configured rollout percent; nil outside a rollout.
    public var percent: Int?
    /// The side(s) a new start of the user goes to first.
    public var side: ActivityHolder
    /// Why, in a sentence.
    public var why: String
    /// What happens when that side refuses the start for a reason that is not the caller's,
    /// or nil when nothing more happens.
    public var fallback: String?

    /// The answer for `user` of `app`, whose rollout is rolled back when `rollback` is given.
    public static func answer(app: AppConfiguration, user: String, rollback: RolloutRollback?) -> RolloutWhere {
        let route: RouteKind = app.dialect == .buzzkit ? .send : .start
        let mode = app.mode(for: route)
        var start = OpenPushStart(appId: app.openPushAppId, activityType: "RolloutWhere")
        start.includeAliases = ["external_id": .array([.string(user)])]
        let translation = Translation(dialect: app.dialect, route: route, sourceApp: app.sourceAppId, requests: [OpenPushRequest(.start(start))])
        // As the router reads it (Routing/Router.swift): a Pushwoosh app's device alias label.
        var deviceAlias: String?
        if case .alias(let label) = app.devices, app.dialect == .pushwoosh { deviceAlias = label }
        let settings = app.rollout ?? RolloutSettings(percent: 0)
        let key = "alias:external_id:\(user)"
        let (cohortBucket, digest) = RolloutCohort.bucket(app: app.name, key: key)
        let splits = RolloutCohort.keys(of: translation, kind: settings.cohortKey, deviceAlias: deviceAlias).first == key
        var answer = RolloutWhere(app: app.name, user: user, cohortKey: key, fingerprint: Fingerprint.short(digest: digest), bucket: splits ? cohortBucket : nil,
                                  mode: mode, percent: mode == .rollout ? app.rollout?.percent : nil, side: .legacy, why: "", fallback: nil)
        switch mode {
        case .observe:
            answer.why = "mode observe: every new start goes to the legacy provider (OpenPush gets none)"
        case .shadow:
            let primary: ActivityHolder = app.shadow?.primary == .openpush ? .openpush : .legacy
            answer.side = primary
            answer.why = "mode shadow: every new start goes to \(primary.spelled) (the primary); the other side gets a shadow copy, which places nothing"
        case .openpush:
            answer.side = .openpush
            answer.why = "mode openpush: every new start goes to OpenPush"
        case .rollout:
            let placement = RolloutCohort.place(app: app.name, translation: translation, settings: settings, deviceAlias: deviceAlias, rolledBack: rollback != nil)
            answer.side = placement.side
            answer.why = why(placement.reason, settings: settings, rollback: rollback, bucket: cohortBucket)
            if placement.side.includesOpenPush {
                answer.fallback = settings.fallbackToLegacy
                    ? "fallback_to_legacy is on: a start OpenPush refuses because no device of the user has a push-to-start token there (the user is still on the old app) goes to the legacy provider and lives there"
                    : "fallback_to_legacy is off: a start OpenPush refuses is answered with OpenPush's refusal"
            }
        }
        return answer
    }

    /// The sentence for a rollout's placement.
    private static func why(_ reason: RolloutPlacement.Reason, settings: RolloutSettings, rollback: RolloutRollback?, bucket: Int) -> String {
        switch reason {
        case .cohort(let bucket):
            bucket < settings.percent
                ? "rollout \(settings.percent)%: bucket \(bucket) is below \(settings.percent), so the user's new starts go to OpenPush"
                : "rollout \(settings.percent)%: bucket \(bucket) is not below \(settings.percent), so the user's new starts go to the legacy provider"
        case .unsplittable:
            "rollout \(settings.percent)%: under cohort_key \(settings.cohortKey.rawValue) a start to this user names no cohort key, "
                + "so it goes where segment_starts (\(settings.segmentStarts.rawValue)) says"
        case .rolledBack:
            "rolled back at \(rollback.map { RFC3339.format(milliseconds: $0.at) } ?? "?") (\(rollback?.threshold ?? "?")): every new start goes to the legacy provider "
                + "until `pushbridge rollout resume`; at the configured \(settings.percent)% bucket \(bucket) would go to \(bucket < settings.percent ? "OpenPush" : "the legacy provider")"
        }
    }

    /// The answer as label and value pairs, in order (unescaped: the caller escapes for its output).
    public var fields: [(label: String, value: String)] {
        var out: [(String, String)] = [("app", app), ("user", user), ("cohort key", "\(cohortKey) (\(fingerprint))"),
                                       ("bucket", bucket.map { "\($0) of 0–99" } ?? "none (not split on this key)"),
                                       ("stage", mode.rawValue + (percent.map { " \($0)%" } ?? "")), ("side", side.spelled), ("why", why)]
        if let fallback { out.append(("fallback", fallback)) }
        return out
    }
}

extension ActivityHolder {
    /// How an answer names the side.
    var spelled: String {
        switch self {
        case .openpush: "OpenPush"
        case .legacy: "the legacy provider"
        case .both: "OpenPush and the legacy provider"
        }
    }
}
