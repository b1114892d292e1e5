import Testing
@testable import PushBridgeCore

/// A OneSignal start's segment findings name `included_segments[i]` / `excluded_segments[i]`
/// from paths made once per process for the first eight names and made per name past them
/// (issue 31, branch `lazyparse`): the same text as the interpolation they replaced, for lists
/// of 0 to 12 names, through the whole translation (the caveat of each unmapped name and the
/// renaming of each mapped one).
struct OneSignalSegmentPathsTests {
    @Test func everyPathIsTheInterpolatedOne() {
        for i in 0..<40 {
            #expect(OneSignalSegmentPaths.included.path(i) == "included_segments[\(i)]")
            #expect(OneSignalSegmentPaths.excluded.path(i) == "excluded_segments[\(i)]")
        }
    }

    @Test(arguments: [0, 1, 2, 7, 8, 9, 12])
    func aStartsSegmentFindingsNameEachNamesPath(_ count: Int) throws {
        let included = (0..<max(count, 1)).map { "seg_\($0)" }
        let excluded = (0..<count).map { "out_\($0)" }
        let body: JSONValue = .object([
            "activity_id": .string("order_1"), "name": .string("Order 1"),
            "event_attributes": .object(["a": .int(1)]), "event_updates": .object(["b": .int(2)]),
            "contents": .object(["en": .string("Hello")]),
            "included_segments": .array(included.map(JSONValue.string)),
            "excluded_segments": .array(excluded.map(JSONValue.string)),
        ])
        let route = try #require(InboundRoute.match(path: "/apps/app_1/activities/activity/Delivery"))
        for map in [nil, Dictionary(uniqueKeysWithValues: (included + excluded).map { ($0, "id_" + $0) })] {
            let context = TranslationContext(now: 1_781_049_600, requestId: "t", segmentMap: map)
            let t = OneSignalDialect().translate(route: route, body: JSONWriter.bytes(body), context: context)
            #expect(t.error == nil)
            let fields = t.findings.map(\.field).filter { $0.hasSuffix("]") }
            let expected = included.indices.map { "included_segments[\($0)]" } + excluded.indices.map { "excluded_segments[\($0)]" }
            #expect(fields == expected, "\(count) names, map \(map != nil)")
        }
    }
}
