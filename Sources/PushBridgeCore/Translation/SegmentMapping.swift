/// Segment names (OneSignal segments, Pushwoosh filters) → OpenPush segment ids through the
/// app's segment map. A mapped name is renamed; an unmapped one is sent as is with a warning
/// or rejected, as the app's `unmapped_segments` says. The sentences recur with every request
/// naming the same segment, so they are ``RecurringText`` (made once, then shared).
public enum SegmentMapping {
    /// The outcome for one name: the id to send, or nil when the name is rejected.
    public static func map(_ name: String, field: String, provider: String, context: TranslationContext,
                           findings: inout [Finding], errors: inout [TranslationError]) -> String? {
        if let id = context.segmentMap?[name] {
            findings.append(Finding(field: field, kind: .renamed, message: RecurringText("\(provider) \"\(name)\" sent as OpenPush segment \(id) through the segment map").text))
            return id
        }
        let why = context.segmentMap == nil ? "no segment map is configured for this app" : MessageText("\"\(name)\" is not in the app's segment map").text
        switch context.unmappedSegmentsInForce {
        case .reject:
            errors.append(TranslationError(field: field, rule: RecurringText("\(provider) \"\(name)\" has no OpenPush segment: \(why) (unmapped_segments is reject); add \"\(name)\": \"<OpenPush segment id>\" to the app's segment_map").text))
            return nil
        case .forward:
            findings.append(Finding(field: field, kind: .caveat,
                                    message: RecurringText("\(why), so the \(provider) \"\(name)\" was sent as the OpenPush segment id; OpenPush segments are ids, and unless one has exactly this id it matches no device — add \"\(name)\": \"<OpenPush segment id>\" to the app's segment_map").text))
            return name
        }
    }
}
