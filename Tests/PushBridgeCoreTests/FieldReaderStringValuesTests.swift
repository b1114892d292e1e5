import Testing
@testable import PushBridgeCore

/// ``FieldReader/stringValues(_:required:)`` gives a string array as its `JSONValue`s, so the
/// OneSignal start's segment lists are mapped without an array of `String`s made first (issue
/// 31, branch `translate9`). It must answer as ``FieldReader/stringArray(_:required:)`` does:
/// nil at the same arrays, the same error naming the first element that is not a string, the
/// same strings in order, the same members left unread; and a segment list with an element
/// that is not a string must still be refused before any of its names is mapped. The first
/// test is an equivalence (it cannot fail on the code before, which had no `stringValues`);
/// the mutants that skip the check or report a later element fail it.
struct FieldReaderStringValuesTests {
    static let elements: [JSONValue] = [.string("seg_a"), .string(""), .string("caf\u{e9}"), .null, .bool(true), .int(7), .array([.string("x")]), .object(["a": .int(1)])]

    @Test func everyArrayReadsAsStringArrayReadsIt() {
        var g = JSONTreeGenerator(seed: 83)
        var refused = 0, read = 0
        for round in 0..<8_000 {
            let length = g.next(7)
            // Most arrays all strings, the rest with one or more other values anywhere.
            let array: [JSONValue] = (0..<length).map { _ in g.next(4) == 0 ? Self.elements[g.next(Self.elements.count)] : .string("s\(g.next(50))") }
            var members: [JSONMember] = [JSONMember("other", .int(1))]
            switch round % 4 {
            case 0: members.append(JSONMember("k", .null))
            case 1: break
            default: members.append(JSONMember("k", .array(array)))
            }
            if round % 8 == 3 { members.append(JSONMember("k", .string("not an array"))) }
            let object = JSONObject(members: members.count > 2 ? [members[0], members[2]] : members)
            let key = FieldKey("k")
            for required in [false, true] {
                var old = FieldReader(object, path: "request")
                var new = FieldReader(object, path: "request")
                let strings = old.stringArray(key, required: required)
                let values = new.stringValues(key, required: required)
                #expect(values.map { $0.map(\.stringValue) } == strings.map { $0.map(Optional.some) }, "\(object)")
                #expect(new.errors == old.errors)
                #expect(new.unread.map(\.key) == old.unread.map(\.key))
                if values == nil { refused += 1 } else { read += 1 }
            }
        }
        #expect(refused > 2_000 && read > 2_000)
    }

    @Test func aSegmentListWithANonStringIsRefusedBeforeAnyNameIsMapped() throws {
        let body = Array(#"{"event":"start","activity_id":"o1","name":"n","event_attributes":{"a":1},"event_updates":{"b":2},"contents":{"en":"hi"},"included_segments":["Active Users",3,"VIP"]}"#.utf8)
        let context = TranslationContext(now: 1_781_049_600, requestId: "t")
        let (_, t) = try #require(Dialects.translate(path: "/apps/app_1/activities/activity/Attrs", body: body, context: context))
        #expect(t.requests.isEmpty)
        #expect(t.error?.field == "included_segments[1]")
        #expect(t.error?.message.contains("must be a string, got number") == true)
        // No name of the list was mapped: no segment finding (renamed or caveat) for it.
        #expect(!t.findings.contains { $0.field.hasPrefix("included_segments") && ($0.kind == .renamed || $0.kind == .caveat) }, "\(t.findings)")
    }
}
