import Testing
@testable import PushBridgeCore

/// ``OpenPushPath/problem(segment:)`` finds dot segments by their bytes and `/` and control
/// characters in one scan (issue 31, branch `translate`): it must give the rule the `String`
/// comparisons and the two scans gave, for every segment, whichever problem comes first.
struct OpenPushPathProblemTests {
    /// The rule as it was found before (the oracle).
    static func before(_ value: String) -> String? {
        if OpenPushRules.isBlank(value) { return "is required and must be non-blank" }
        if value == "." || value == ".." { return "must not be \".\" or \"..\" (it goes into the OpenPush URL path, where it would name another route)" }
        if value.containsUTF8(UInt8(ascii: "/")) { return "must not contain / (it goes into the OpenPush URL path)" }
        if OpenPushPath.hasControlCharacter(value) { return "must not contain control characters (it goes into the OpenPush URL path)" }
        return nil
    }

    /// Pieces whose concatenations hit each rule and their mixtures.
    static let pieces = [".", "/", "a", " ", "\t", "\u{0}", "\u{7F}", "\u{85}", "\u{301}", "é", "\u{2024}", "\u{FF0E}", "order_88214", "\u{C2}"]

    @Test func everySegmentGetsTheRuleItGotBefore() {
        var segments = [""] + Self.pieces
        for a in Self.pieces { for b in Self.pieces { segments.append(a + b); for c in [".", "/", "\u{1}", "x"] { segments.append(a + b + c) } } }
        var problems = 0
        for s in segments {
            let rule = OpenPushPath.problem(segment: s)
            #expect(rule == Self.before(s), "\(s.debugDescription)")
            if rule != nil { problems += 1 }
        }
        #expect(segments.count > 800)
        #expect(problems > 100 && problems < segments.count)
    }
}
