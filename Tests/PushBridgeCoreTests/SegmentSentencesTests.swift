import Testing
@testable import PushBridgeCore

/// ``SegmentMapping`` takes its sentences from ``SegmentSentences``, kept by what they are made
/// from (issue 31, branch `translate7`): every finding and error must still be what the code
/// before it said (kept here as the oracle: the sentences as `String` interpolation writes
/// them), byte for byte, whatever the cache held: canonically equal names and ids (`é` and
/// `e` + U+0301, `K` and the Kelvin sign), which `String`'s `==` holds to be the same; names
/// one byte apart; two providers of one length; with and without a segment map; every
/// `unmapped_segments`; names and ids past the longest kept; the fan-out caveat of a start at
/// one segment among them; in an order that makes slots be
/// replaced and found again, and from eight tasks at once.
struct SegmentSentencesTests {
    static let names: [String] = ["seg_01hq8n4t", "seg_01hq8n4u", "seg_11hq8n4t", "café", "cafe\u{301}", "K", "\u{212A}",
                                  "", "VIP \"gold\"", #"a\b"#, "👨‍🍳 chefs", "—", String(repeating: "long-name-", count: 30)]
    static let providers = ["OneSignal segment", "OneSignal segmenT", "Pushwoosh filter",
                            "Pushwoosh filter_code (the older name of filter)"]
    /// Maps: none, one mapping some names (to ids that are themselves twins), one mapping none.
    static let maps: [[String: String]?] = [nil, ["seg_01hq8n4t": "os_1", "café": "é-id", "K": "Kid", "—": String(repeating: "i", count: 300),
                                                  "VIP \"gold\"": "e\u{301}-id"],
                                            ["other": "x"], ["cafe\u{301}": "e\u{301}-id", "\u{212A}": "\u{212A}id"]]
    static let modes: [TranslationContext.UnmappedSegments?] = [nil, .forward, .reject]

    /// The code before the cache: the sentences made each time.
    static func oracle(_ name: String, field: String, provider: String, context: TranslationContext,
                       findings: inout [Finding], errors: inout [TranslationError]) -> String? {
        if let id = context.segmentMap?[name] {
            findings.append(Finding(field: field, kind: .renamed, message: "\(provider) \"\(name)\" sent as OpenPush segment \(id) through the segment map"))
            return id
        }
        let why = context.segmentMap == nil ? "no segment map is configured for this app" : "\"\(name)\" is not in the app's segment map"
        switch context.unmappedSegmentsInForce {
        case .reject:
            errors.append(TranslationError(field: field, rule: "\(provider) \"\(name)\" has no OpenPush segment: \(why) (unmapped_segments is reject); add \"\(name)\": \"<OpenPush segment id>\" to the app's segment_map"))
            return nil
        case .forward:
            findings.append(Finding(field: field, kind: .caveat,
                                    message: "\(why), so the \(provider) \"\(name)\" was sent as the OpenPush segment id; OpenPush segments are ids, and unless one has exactly this id it matches no device — add \"\(name)\": \"<OpenPush segment id>\" to the app's segment_map"))
            return name
        }
    }

    /// One random mapping through both, as bytes: the id, the findings' and errors' texts.
    static func mismatch(_ g: inout RedactionOverBytesGeneratedTests.Generator) -> String? {
        let name = g.pick(names)
        let provider = g.pick(providers)
        let context = TranslationContext(now: 0, segmentMap: maps[g.next(maps.count)], unmappedSegments: modes[g.next(modes.count)])
        var f1: [Finding] = [], e1: [TranslationError] = [], f2: [Finding] = [], e2: [TranslationError] = []
        let id1 = SegmentMapping.map(name, field: "included_segments[0]", provider: provider, context: context, findings: &f1, errors: &e1)
        let id2 = oracle(name, field: "included_segments[0]", provider: provider, context: context, findings: &f2, errors: &e2)
        let made = [id1 ?? "nil"] + f1.flatMap { [$0.field, $0.kind.rawValue, $0.message] } + e1.flatMap { [$0.field, $0.rule, $0.message] }
        let expected = [id2 ?? "nil"] + f2.flatMap { [$0.field, $0.kind.rawValue, $0.message] } + e2.flatMap { [$0.field, $0.rule, $0.message] }
        return made.map { Array($0.utf8) } == expected.map { Array($0.utf8) } ? nil : "\(made) instead of \(expected)"
    }

    @Test func aSegmentsSentenceIsTheOldCodesBytes() {
        var g = RedactionOverBytesGeneratedTests.Generator(state: 317)
        var issues = 0
        for _ in 0..<6_000 {
            if let m = Self.mismatch(&g) {
                issues += 1
                if issues <= 5 { Issue.record(Comment(rawValue: m)) }
            }
        }
        #expect(issues == 0)
    }

    /// The fan-out caveat of a start aimed at one segment, asked between the mappings of the
    /// same names (one cache holds both), is the sentence the code before wrote
    /// (``OpenPushFanOutCaveatTests/oracle(_:)``), byte for byte, and a start at two segments
    /// is unchanged.
    @Test func theOneSegmentFanOutCaveatIsTheOldCodesBytes() {
        var g = RedactionOverBytesGeneratedTests.Generator(state: 731)
        var issues = 0
        for _ in 0..<4_000 {
            if Self.mismatch(&g) != nil { issues += 1 }
            var s = OpenPushStart(appId: "app", activityType: "Delivery")
            let segments = g.next(5) == 0 ? [g.pick(Self.names), g.pick(Self.names)] : [g.pick(Self.names)]
            s.includedSegments = segments
            let made = OpenPushCheck.fanOut(OpenPushRequest(.start(s))) { "caller.\($0)" }
            let expected = OpenPushFanOutCaveatTests.oracle(segments)
            if made.count != 1 || made[0].field != "caller.included_segments" || made[0].kind != .caveat
                || Array(made[0].message.utf8) != Array(expected.utf8) {
                issues += 1
                if issues <= 5 { Issue.record("\(made) instead of \(expected)") }
            }
        }
        #expect(issues == 0)
    }

    /// Canonically equal names that land in the same slot (found by search, so the held
    /// sentence of one is compared with the other's inputs), asked in turn for the caveat of a
    /// forwarded name and the one-segment fan-out caveat: each gets its own bytes.
    @Test func twinNamesInOneSlotGetTheirOwnSentences() {
        let outcomes: [(SegmentSentences.Outcome, String)] = [(.forwarded, "OneSignal segment"), (.fanOutCaveat, "")]
        for (outcome, provider) in outcomes {
            let twins = (0..<2_000).lazy.map { ("caf\u{E9}_\($0)", "cafe\u{301}_\($0)") }.first {
                SegmentSentences.slot(outcome, provider: provider, name: $0.0) == SegmentSentences.slot(outcome, provider: provider, name: $0.1)
            }
            guard let twins else { Issue.record("no twins share a slot"); continue }
            #expect(twins.0 == twins.1 && Array(twins.0.utf8) != Array(twins.1.utf8))
            for name in [twins.0, twins.1, twins.0, twins.1, twins.1, twins.0] {
                let made: String
                let expected: String
                if outcome == .forwarded {
                    var f: [Finding] = [], e: [TranslationError] = [], f2: [Finding] = []
                    _ = SegmentMapping.map(name, field: "f", provider: provider, context: TranslationContext(now: 0), findings: &f, errors: &e)
                    _ = Self.oracle(name, field: "f", provider: provider, context: TranslationContext(now: 0), findings: &f2, errors: &e)
                    (made, expected) = (f[0].message, f2[0].message)
                } else {
                    var s = OpenPushStart(appId: "app", activityType: "Delivery")
                    s.includedSegments = [name]
                    made = OpenPushCheck.fanOut(OpenPushRequest(.start(s))) { $0 }[0].message
                    expected = OpenPushFanOutCaveatTests.oracle([name])
                }
                let same = Array(made.utf8) == Array(expected.utf8)
                #expect(same, "\(outcome) \(name): \(made)")
            }
        }
    }

    /// The same sentence asked twice shares the first one's storage (the cache is used).
    @Test func aRepeatedSegmentSharesItsSentence() {
        let name = "seg_shared_\(UInt64.random(in: 0...UInt64.max))"
        var f: [Finding] = [], e: [TranslationError] = []
        for _ in 0..<2 {
            _ = SegmentMapping.map(name, field: "f", provider: "OneSignal segment", context: TranslationContext(now: 0), findings: &f, errors: &e)
        }
        let a = f[0].message.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        let b = f[1].message.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        #expect(a != nil && a == b)
    }

    /// Many threads mapping at once get their own sentences' bytes.
    @Test func concurrentSegmentsGetTheirOwnSentences() async {
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for t in 0..<8 {
                group.addTask {
                    var g = RedactionOverBytesGeneratedTests.Generator(state: UInt64(t) &+ 1_000)
                    var bad = 0
                    for _ in 0..<1_500 where Self.mismatch(&g) != nil { bad += 1 }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}
