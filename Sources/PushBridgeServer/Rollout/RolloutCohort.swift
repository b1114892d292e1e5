import PushBridgeCore

/// Where a rollout sends one new start, and by what: pure, so every instance (and every
/// process) given the same app name and start computes the same side.
public struct RolloutPlacement: Sendable, Equatable {
    /// Why the start goes where it goes.
    public enum Reason: Sendable, Equatable {
        /// Its cohort key's bucket (0–99) against the percent.
        case cohort(bucket: Int)
        /// It names no cohort key of the configured kind (a segment or filter start, or a
        /// device start under `cohort_key: user`): `segment_starts` decided.
        case unsplittable
        /// The app's rollout is rolled back: every new start goes to the legacy provider.
        case rolledBack
    }

    /// The side(s) the start goes to; the holder the ledger records when it is accepted there.
    public var side: ActivityHolder
    /// The cohort key's short SHA-256 fingerprint (the ledger's `cohortKey`); nil when unsplittable.
    public var cohortKey: String?
    /// Why.
    public var reason: Reason

    /// A placement.
    public init(side: ActivityHolder, cohortKey: String?, reason: Reason) {
        self.side = side
        self.cohortKey = cohortKey
        self.reason = reason
    }
}

extension RolloutPlacement.Reason {
    /// What a legacy-side row's message says about why the start went there.
    var legacyMessage: String {
        switch self {
        case .cohort(let bucket): "rollout: cohort bucket \(bucket) is outside the percent, so the legacy provider got the start"
        case .unsplittable: "rollout: no cohort key (a segment or filter start), so the start went where segment_starts says"
        case .rolledBack: "rollout: rolled back, so every new start goes to the legacy provider"
        }
    }
}

/// The cohort placement of a rollout's new starts.
///
/// The cohort key is the start's target, read from its translation: `include_aliases`
/// (`alias:<label>:<id>`, OneSignal external ids, Pushwoosh `users`, BuzzKit subscribers) and
/// `include_subscription_ids` (`subscription:<id>`, Pushwoosh `devices` as subscription ids);
/// Pushwoosh `devices` sent under the app's device alias label count as devices. Its bucket is
/// the first eight bytes of SHA-256(app name + NUL + key), big-endian, mod 100; buckets below
/// the percent go to OpenPush. A start naming several targets (several ids, or a Pushwoosh
/// request with several notifications) is placed by the first key in sorted (byte) order, so
/// the same list always lands on the same side whatever its order.
public enum RolloutCohort {
    /// The cohort keys a translation's starts name for `kind`, sorted; empty when it names none
    /// (a segment or filter start). `deviceAlias` is the app's Pushwoosh device alias label.
    public static func keys(of translation: Translation, kind: RolloutSettings.CohortKey, deviceAlias: String? = nil) -> [String] {
        var keys: [String] = []
        for request in translation.requests {
            guard case .start(let start) = request.payload else { continue }
            for member in start.includeAliases?.members ?? [] {
                let isDevice = member.key == deviceAlias
                guard kind == .audience || (kind == .device) == isDevice else { continue }
                let ids = member.value.arrayValue?.compactMap(\.stringValue) ?? member.value.stringValue.map { [$0] } ?? []
                keys += ids.map { "alias:\(member.key):\($0)" }
            }
            if kind != .user { keys += (start.includeSubscriptionIds ?? []).map { "subscription:\($0)" } }
        }
        return keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The bucket (0–99) of `key` in `app`, and the digest it came from.
    public static func bucket(app: String, key: String) -> (bucket: Int, digest: [UInt8]) {
        let digest = Fingerprint.sha256(bytes: Array(app.utf8) + [0] + Array(key.utf8))
        let prefix = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return (Int(prefix % 100), digest)
    }

    /// Where a new start of `app` goes: the legacy provider when rolled back; else by its
    /// first cohort key's bucket against `settings.percent`; else as `segment_starts` says.
    public static func place(app: String, translation: Translation, settings: RolloutSettings, deviceAlias: String? = nil, rolledBack: Bool = false) -> RolloutPlacement {
        if rolledBack { return RolloutPlacement(side: .legacy, cohortKey: nil, reason: .rolledBack) }
        guard let first = keys(of: translation, kind: settings.cohortKey, deviceAlias: deviceAlias).first else {
            let side: ActivityHolder = switch settings.segmentStarts {
            case .legacy: .legacy
            case .openpush: .openpush
            case .both: .both
            }
            return RolloutPlacement(side: side, cohortKey: nil, reason: .unsplittable)
        }
        let (bucket, digest) = bucket(app: app, key: first)
        return RolloutPlacement(side: bucket < settings.percent ? .openpush : .legacy, cohortKey: Fingerprint.short(digest: digest), reason: .cohort(bucket: bucket))
    }
}
