/// Segment names (OneSignal segments, Pushwoosh filters) → OpenPush segment ids through the
/// app's segment map. A mapped name is renamed; an unmapped one is sent as is with a warning
/// or rejected, as the app's `unmapped_segments` says. The sentences recur with every request
/// naming the same segment, so they are kept by what they are made from in ``SegmentSentences``
/// (made once, then shared).
public enum SegmentMapping {
    /// The outcome for one name: the id to send, or nil when the name is rejected.
    public static func map(_ name: String, field: String, provider: String, context: TranslationContext,
                           findings: inout [Finding], errors: inout [TranslationError]) -> String? {
        let mapConfigured = context.segmentMap != nil
        if let id = context.segmentMap?[name] {
            findings.appendGrowingOnce(Finding(field: field, kind: .renamed, message: SegmentSentences.text(.renamed, mapConfigured: true, provider: provider, name: name, id: id) {
                MessageText("\(provider) \"\(name)\" sent as OpenPush segment \(id) through the segment map").text
            }))
            return id
        }
        switch context.unmappedSegmentsInForce {
        case .reject:
            errors.append(TranslationError(field: field, rule: SegmentSentences.text(.rejected, mapConfigured: mapConfigured, provider: provider, name: name, id: "") {
                MessageText("\(provider) \"\(name)\" has no OpenPush segment: \(why(name, mapConfigured)) (unmapped_segments is reject); add \"\(name)\": \"<OpenPush segment id>\" to the app's segment_map").text
            }))
            return nil
        case .forward:
            findings.appendGrowingOnce(Finding(field: field, kind: .caveat, message: SegmentSentences.text(.forwarded, mapConfigured: mapConfigured, provider: provider, name: name, id: "") {
                MessageText("\(why(name, mapConfigured)), so the \(provider) \"\(name)\" was sent as the OpenPush segment id; OpenPush segments are ids, and unless one has exactly this id it matches no device — add \"\(name)\": \"<OpenPush segment id>\" to the app's segment_map").text
            }))
            return name
        }
    }

    /// Why an unmapped name has no OpenPush segment.
    static func why(_ name: String, _ mapConfigured: Bool) -> String {
        mapConfigured ? MessageText("\"\(name)\" is not in the app's segment map").text : "no segment map is configured for this app"
    }
}
