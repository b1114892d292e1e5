import Testing
@testable import PushBridgeCore

/// The findings a translation makes on its common path (the segment caveat or rename, the
/// fan-out caveat) go into one block of room for ``Array/firstRoom`` findings (issue 31, branch
/// `translate8`), and appending that way keeps exactly what `append` keeps.
struct FindingRoomTests {
    static let body = Array("""
        {"event": "start", "activity_id": "order_88214", "name": "Order 88214",
         "event_attributes": {"orderNumber": "88214"}, "event_updates": {"stage": "out"},
         "headings": {"en": "On the way"}, "contents": {"en": "Arriving soon"},
         "included_segments": ["seg_01hq8n4t2v"], "priority": 10}
        """.utf8)
    static let path = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"

    @Test(arguments: [nil, ["seg_01hq8n4t2v": "os_seg_1"]] as [[String: String]?])
    func aOneSignalStartsTwoFindingsShareOneBlock(_ map: [String: String]?) throws {
        let context = TranslationContext(now: 1_781_049_600, requestId: "t", segmentMap: map)
        let (_, t) = try #require(Dialects.translate(path: Self.path, body: Self.body, context: context))
        #expect(t.error == nil)
        #expect(t.findings.map(\.field) == ["included_segments[0]", "included_segments"])
        #expect(t.findings.map(\.kind) == [map == nil ? .caveat : .renamed, .caveat])
        // Appended one at a time, two findings leave room for two: the old code's array.
        #expect(t.findings.capacity >= [Finding].firstRoom)
    }

    @Test func appendingGrowingOnceKeepsWhatAppendKeeps() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: seed >> 33) % n
        }
        let kinds: [FindingKind] = [.caveat, .renamed, .dropped, .rejected, .synthesized]
        for round in 0..<400 {
            let already = next(12)
            let added = next(20)
            var plain: [Finding] = []
            plain.reserveCapacity(next(3) == 0 ? 0 : next(24))
            for i in 0..<already { plain.append(Finding(field: "f\(i)", kind: kinds[next(kinds.count)], message: "m\(round)-\(i)")) }
            var grown = plain
            for i in 0..<added {
                let f = Finding(field: "g\(i)", kind: kinds[next(kinds.count)], message: String(repeating: "é", count: next(40)))
                plain.append(f)
                grown.appendGrowingOnce(f)
                #expect(grown.capacity >= [Finding].firstRoom)
            }
            #expect(grown == plain, "round \(round)")
        }
    }
}
