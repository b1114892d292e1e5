import Testing
@testable import PushBridgeCore

/// The fan-out caveat of a start aimed at segments is one sentence with the names written into
/// it (issue 31, branch `lazyparse`), the same text as the two-step sentence it replaced (the
/// "segment … holds" piece made first, then put into the sentence), written here with `String`
/// interpolation as the oracle: one to four names, empty ones, names with quotes, backslashes,
/// commas, non-ASCII and combining marks, and lists long enough to pass the sentence's 512
/// bytes of inline room.
struct OpenPushFanOutCaveatTests {
    /// The sentence as `OpenPushCheck.fanOut` wrote it before, in plain interpolation.
    static func oracle(_ segments: [String]) -> String {
        let names = segments.map { "\"\($0)\"" }.joined(separator: ", ")
        let holds = segments.count == 1 ? "segment \(names) holds" : "segments \(names) together hold"
        return "OpenPush reaches at most \(OpenPushLimits.fanOutCap) devices per send and does not report the cut: if \(holds) more devices with a push-to-start token, only the first \(OpenPushLimits.fanOutCap) get this start. Split larger audiences into batches (OpenPush allows 60 sends a minute)"
    }

    static let names = ["seg_01hq8n4t2v", "", "VIP \"gold\"", #"a\b"#, "x, y", "café", "e\u{301}", "👨‍🍳 chefs", "—",
                        String(repeating: "long-name-", count: 30)]

    @Test func theSegmentCaveatIsTheTwoStepSentence() {
        var g = RedactionOverBytesGeneratedTests.Generator(state: 4)
        var lists: [[String]] = Self.names.map { [$0] }
        for _ in 0..<400 { lists.append((0..<(1 + g.next(4))).map { _ in g.pick(Self.names) }) }
        var spilled = 0
        for segments in lists {
            var s = OpenPushStart(appId: "app", activityType: "Delivery")
            s.includedSegments = segments
            let findings = OpenPushCheck.fanOut(OpenPushRequest(.start(s))) { "caller.\($0)" }
            let expected = Self.oracle(segments)
            #expect(findings == [Finding(field: "caller.included_segments", kind: .caveat, message: expected)], "\(segments)")
            if expected.utf8.count > MessageText.Pieces.inlineCapacity { spilled += 1 }
        }
        #expect(spilled > 10, "only \(spilled) sentences passed the inline room")
    }

    /// The check appends the caveat to the translation's findings (issue 31, branch
    /// `translate6`: no array of its own): after the findings already there, which stay, and
    /// nothing for a request that needs none, the same as appending the returned array.
    @Test func theCaveatIsAppendedAfterTheFindingsThere() {
        var g = RedactionOverBytesGeneratedTests.Generator(state: 9)
        let before = [Finding(field: "a", kind: .dropped, message: "first"), Finding(field: "b", kind: .renamed, message: "second")]
        var requests: [OpenPushRequest] = []
        for i in 0..<300 {
            var s = OpenPushStart(appId: "app", activityType: "Delivery")
            switch i % 5 {
            case 0: s.includedSegments = (0..<(1 + g.next(3))).map { _ in g.pick(Self.names) }
            case 1: s.filters = [.object(["field": .string("tag")])]
            case 2: s.includeSubscriptionIds = (0..<(OpenPushLimits.fanOutCap - 2 + g.next(5))).map { "sub_\($0)" }
            case 3: s.includeAliases = ["external_id": .array((0..<(OpenPushLimits.fanOutCap - 2 + g.next(5))).map { .string("x\($0)") })]
            default: break
            }
            requests.append(OpenPushRequest(.start(s)))
        }
        requests.append(OpenPushRequest(.update(OpenPushUpdate(appId: "app", activityId: "act", event: "update"))))
        var appended = 0
        for request in requests {
            var out = before
            OpenPushCheck.fanOut(request, callerField: { "caller.\($0)" }, into: &out)
            let returned = OpenPushCheck.fanOut(request) { "caller.\($0)" }
            #expect(out == before + returned)
            appended += out.count - before.count
        }
        #expect(appended > 150, "only \(appended) caveats")
    }
}
