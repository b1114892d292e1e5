import Testing
@testable import PushBridgeCore

/// ``OpenPushStart`` keeps its fields in one box shared by its copies until one is changed
/// (issue 31, branch `translate4`). It must behave exactly as the plain struct it was: a copy
/// changed leaves the original as it was, whatever field is changed and however (set, cleared,
/// changed in place through optional chaining), `==` is the struct's member-by-member equality,
/// and the body is the same. The oracle is that plain struct, kept here.
struct OpenPushStartStorageTests {
    typealias G = RedactionOverBytesGeneratedTests.Generator
    typealias Gen = OpenPushBodyRawWriterTests

    /// The struct ``OpenPushStart`` was before its box: the same fields, synthesized `==`.
    struct PlainStart: Equatable {
        var appId: String, activityType: String, event: String?, activityId: String?
        var eventAttributes: JSONObject?, eventUpdates: JSONObject?, name: String?, contents: JSONObject?, headings: JSONObject?
        var staleDate: Int64?, dismissalDate: Int64?, priority: Int64?, relevanceScore: JSONNumber?
        var iosSound: String?, sound: String?, idempotencyKey: String?
        var includeAliases: JSONObject?, includeSubscriptionIds: [String]?, includedSegments: [String]?, excludedSegments: [String]?
        var filters: [JSONValue]?

        init(_ s: OpenPushStart) {
            appId = s.appId; activityType = s.activityType; event = s.event; activityId = s.activityId
            eventAttributes = s.eventAttributes; eventUpdates = s.eventUpdates; name = s.name; contents = s.contents; headings = s.headings
            staleDate = s.staleDate; dismissalDate = s.dismissalDate; priority = s.priority; relevanceScore = s.relevanceScore
            iosSound = s.iosSound; sound = s.sound; idempotencyKey = s.idempotencyKey
            includeAliases = s.includeAliases; includeSubscriptionIds = s.includeSubscriptionIds
            includedSegments = s.includedSegments; excludedSegments = s.excludedSegments; filters = s.filters
        }
    }

    /// Each way of changing a start, applied alike to the start and to its plain oracle.
    static func change(_ k: Int, _ s: inout OpenPushStart, _ p: inout PlainStart, _ g: inout G) {
        let text = Gen.text(&g)
        let object = Gen.object(&g, depth: 1)
        let int = Gen.integers[g.next(Gen.integers.count)]
        let clear = g.next(3) == 0
        switch k {
        case 0: s.appId = text; p.appId = text
        case 1: s.activityType += text; p.activityType += text
        case 2: s.event = clear ? nil : text; p.event = clear ? nil : text
        case 3: s.activityId = clear ? nil : text; p.activityId = clear ? nil : text
        case 4: s.eventAttributes = clear ? nil : object; p.eventAttributes = clear ? nil : object
        case 5: s.eventUpdates?["k\(text)"] = .string(text); p.eventUpdates?["k\(text)"] = .string(text)
        case 6: s.name?.append(text); p.name?.append(text)
        case 7: s.contents = object; p.contents = object
        case 8: s.headings?["en"] = nil; p.headings?["en"] = nil
        case 9: s.staleDate = clear ? nil : int; p.staleDate = clear ? nil : int
        case 10: s.dismissalDate = int; p.dismissalDate = int
        case 11: s.priority = clear ? nil : int; p.priority = clear ? nil : int
        case 12: s.relevanceScore = JSONNumber(int); p.relevanceScore = JSONNumber(int)
        case 13: s.iosSound = clear ? nil : text; p.iosSound = clear ? nil : text
        case 14: s.sound = text; p.sound = text
        case 15: s.idempotencyKey = clear ? nil : text; p.idempotencyKey = clear ? nil : text
        case 16: s.includeAliases = clear ? nil : object; p.includeAliases = clear ? nil : object
        case 17: s.includeSubscriptionIds?.append(text); p.includeSubscriptionIds?.append(text)
        case 18: s.includedSegments = (s.includedSegments ?? []) + [text]; p.includedSegments = (p.includedSegments ?? []) + [text]
        case 19: s.excludedSegments?.removeAll(); p.excludedSegments?.removeAll()
        default: s.filters?.append(.object(object)); p.filters?.append(.object(object))
        }
    }

    static var starts: [OpenPushStart] {
        Gen.requests(count: 1_200).compactMap { if case .start(let s) = $0.payload { s } else { nil } }
    }

    @Test func aChangedCopyLeavesTheOriginalAsThePlainStructDoes() {
        var g = G(state: 43)
        let starts = Self.starts
        #expect(starts.count == 600)
        for (i, original) in starts.enumerated() {
            let plainBefore = PlainStart(original)
            let bodyBefore = OpenPushRequest(.start(original)).bodyBytes
            for k in [i % 21, (i * 7 + 3) % 21] {
                var copy = original
                var plain = plainBefore
                Self.change(k, &copy, &plain, &g)
                // A second change to the same copy, now its own box.
                Self.change((k + 5) % 21, &copy, &plain, &g)
                #expect(PlainStart(copy) == plain, "start \(i), change \(k)")
                #expect(PlainStart(original) == plainBefore, "start \(i), change \(k): the original changed")
                #expect((copy == original) == (plain == plainBefore), "start \(i), change \(k)")
                #expect(OpenPushRequest(.start(original)).bodyBytes == bodyBefore)
            }
            // Through the request: the start taken out, changed and put back leaves the first request as it was.
            let request = OpenPushRequest(.start(original))
            var second = request
            if case .start(var s) = second.payload {
                var plain = plainBefore
                Self.change(i % 21, &s, &plain, &g)
                second.payload = .start(s)
                #expect(request.body == original.body)
                #expect(second.body == OpenPushRequest(.start(s)).body)
            }
        }
    }

    @Test func equalityIsTheStructsMemberByMemberEquality() {
        let starts = Self.starts
        // The same generated starts made again: other boxes, equal fields.
        let again = Self.starts
        for i in starts.indices {
            #expect(starts[i] == again[i])
            let j = (i * 31 + 7) % starts.count
            #expect((starts[i] == starts[j]) == (PlainStart(starts[i]) == PlainStart(starts[j])), "\(i) vs \(j)")
            var copy = starts[i]
            copy.priority = copy.priority.map { $0 &+ 1 } ?? 5
            #expect(copy != starts[i])
            copy.priority = starts[i].priority
            #expect(copy == starts[i])
        }
    }
}
