import PushBridgeCore

/// An app's rollout stage (`"mode": "rollout"` with a `rollout` object): which share of its
/// new starts goes to OpenPush, what a start's cohort is, and what happens to starts that
/// cannot be placed by cohort.
public struct RolloutSettings: Sendable, Equatable {
    /// Which target of a start is its cohort key.
    public enum CohortKey: String, Sendable, CaseIterable {
        /// Whatever the start targets: external id / alias, subscription id, Pushwoosh users or devices.
        case audience
        /// Only external ids / aliases / Pushwoosh users; a device-targeted start is not splittable.
        case user
        /// Only subscription ids / Pushwoosh devices; a user-targeted start is not splittable.
        case device
    }

    /// Where a start that cannot be placed by cohort (a segment or filter, or no key of the
    /// chosen kind) goes.
    public enum SegmentStarts: String, Sendable, CaseIterable {
        /// To the legacy provider (the default).
        case legacy
        /// To OpenPush.
        case openpush
        /// To both: a phone registered on both sides shows two activities.
        case both
    }

    /// Percent of cohort keys whose new starts go to OpenPush, 0–100.
    public var percent: Int
    /// The cohort key. Default `.audience`.
    public var cohortKey: CohortKey = .audience
    /// Send a start OpenPush refuses with its documented 400 "no device has registered a
    /// push-to-start token" to the legacy provider instead. Default true.
    public var fallbackToLegacy = true
    /// Where unsplittable starts go. Default `.legacy`.
    public var segmentStarts: SegmentStarts = .legacy

    /// A rollout; defaults as documented on each property.
    public init(percent: Int, cohortKey: CohortKey = .audience, fallbackToLegacy: Bool = true, segmentStarts: SegmentStarts = .legacy) {
        self.percent = percent
        self.cohortKey = cohortKey
        self.fallbackToLegacy = fallbackToLegacy
        self.segmentStarts = segmentStarts
    }

    /// The configuration keys.
    static let keys = ["percent", "cohort_key", "fallback_to_legacy", "segment_starts"]

    /// Decodes an app's `rollout` object, reporting each bad key with its rule; nil when absent
    /// or when `percent` is missing or bad.
    static func decode(_ value: JSONValue?, at path: String, _ r: ConfigReader) -> RolloutSettings? {
        guard let o = r.object(value, at: path, allowed: keys) else { return nil }
        var percent: Int?
        if let n = o["percent"] {
            if let v = n.numberValue?.int64Value, (0...100).contains(v) { percent = Int(v) } else { r.report("\(path).percent", "must be an integer from 0 to 100") }
        } else {
            r.report("\(path).percent", "required: an integer from 0 to 100")
        }
        var s = RolloutSettings(percent: percent ?? 0)
        if let text = r.string(o, "cohort_key", at: path) {
            if let key = CohortKey(rawValue: text) { s.cohortKey = key } else { r.report("\(path).cohort_key", "must be one of \(spelled(CohortKey.allCases))") }
        }
        s.fallbackToLegacy = r.bool(o, "fallback_to_legacy", at: path, default: true)
        if let text = r.string(o, "segment_starts", at: path) {
            if let v = SegmentStarts(rawValue: text) { s.segmentStarts = v } else { r.report("\(path).segment_starts", "must be one of \(spelled(SegmentStarts.allCases))") }
        }
        return percent == nil ? nil : s
    }

    private static func spelled<T: RawRepresentable<String>>(_ cases: [T]) -> String { cases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") }
}
