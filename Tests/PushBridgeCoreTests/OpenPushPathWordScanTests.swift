import Testing
@testable import PushBridgeCore

/// ``OpenPushPath/problem(segment:)`` passes eight bytes at a time while none can be a `/` or
/// start a control character (issue 31, branch `translate8`): at every offset of segments longer
/// than a word, each byte that matters must give the rule the rule before the shortcut gave
/// (``OpenPushPathProblemTests/before(_:)``, the oracle).
struct OpenPushPathWordScanTests {
    /// Characters that make a rule, or come near to: `/`, C0, DEL, C1 (0xC2 0x80 and 0xC2 0x9F),
    /// U+00A0 (0xC2 0xA0, not a control), other non-ASCII, space, tab and bytes next to them.
    static let specials = ["/", "\u{0}", "\u{1F}", "\u{7F}", "\u{80}", "\u{9F}", "\u{A0}", "é", "\u{2024}", " ", "\t", ".", "0", "~", "\u{20}x"]

    @Test(arguments: specials)
    func aSpecialAtEveryOffsetGetsTheRuleItGotBefore(_ special: String) {
        var mismatches = 0
        for filler in ["a", "Z", "_", "-", "9"] {
            for length in 0...26 {
                for at in 0...length {
                    let head = String(repeating: filler, count: at), tail = String(repeating: filler, count: length - at)
                    for s in [head + special + tail, head + special + tail + special, special + head + "é" + tail] where OpenPushPath.problem(segment: s) != OpenPushPathProblemTests.before(s) {
                        mismatches += 1
                    }
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func generatedLongSegmentsGetTheRuleTheyGotBefore() {
        var g = RedactionOverBytesGeneratedTests.Generator(state: 0x5851_F42D_4C95_7F2D)
        func next(_ n: Int) -> Int { g.next(n) }
        let pieces = Self.specials + ["order_88214", "abcdefgh", "DeliveryAttributes", "a", "5f7a2c1e-9b40", "\u{85}"]
        var mismatches = 0, problems = 0
        for _ in 0..<20_000 {
            // Mostly plain pieces, so the words before a special are often clean.
            let s = (0..<(1 + next(8))).map { _ in next(3) == 0 ? Self.specials[next(Self.specials.count)] : pieces[Self.specials.count + next(pieces.count - Self.specials.count)] }.joined()
            let rule = OpenPushPath.problem(segment: s)
            if rule != OpenPushPathProblemTests.before(s) { mismatches += 1 }
            if rule != nil { problems += 1 }
        }
        #expect(mismatches == 0)
        #expect(problems > 2_000 && problems < 18_000)
    }
}
