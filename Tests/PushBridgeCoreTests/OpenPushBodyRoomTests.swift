import Testing
@testable import PushBridgeCore

/// The OpenPush body written once into an array of ``OpenPushRequest/bodyRoom`` bytes, and
/// written again at its counted size when it does not fit (issue 31, branch `lazyparse`), is
/// byte for byte what the tree writer writes from ``OpenPushRequest/body``: bodies of every size
/// from 80 bytes under the room to 80 over it, the edge falling inside a plain string's copy,
/// inside an escape, inside a non-ASCII character and on the closing brace; and the 3,000
/// generated starts and updates of ``OpenPushBodyRawWriterTests``, both paths taken.
struct OpenPushBodyRoomTests {
    /// What the tree writer writes for a request's body.
    static func tree(_ request: OpenPushRequest) -> [UInt8] { JSONWriter.bytes(.object(request.body)) }

    /// A start whose idempotency key (its last member) is `fill` repeated `count` times.
    static func start(fill: String, count: Int) -> OpenPushRequest {
        var s = OpenPushStart(appId: "app", activityType: "Delivery")
        s.activityId = "order_88214"
        s.name = "Order 88214"
        s.eventAttributes = ["orderNumber": .string("88214")]
        s.eventUpdates = ["stage": .string("out_for_delivery"), "etaMinutes": .int(22)]
        s.contents = ["en": .string("Arriving in about 22 minutes")]
        s.includedSegments = ["seg_01hq8n4t2v"]
        s.priority = 10
        s.idempotencyKey = String(repeating: fill, count: count)
        return OpenPushRequest(.start(s))
    }

    @Test(arguments: ["x", "\"", "é", "\u{1}", "—"])
    func everyBodySizeAroundTheRoomIsTheTreesBytes(_ fill: String) {
        let room = OpenPushRequest.bodyRoom
        var sizes: Set<Int> = []
        for count in 0..<1_200 {
            let request = Self.start(fill: fill, count: count)
            let tree = Self.tree(request)
            guard abs(tree.count - room) <= 80 || count == 1_199 else { continue }
            sizes.insert(tree.count)
            #expect(request.bodyBytes == tree, "\(fill) × \(count): \(tree.count) bytes")
        }
        // Sizes on both sides of the room, and the room itself where the fill's width allows it.
        #expect(sizes.contains { $0 < room } && sizes.contains { $0 > room })
        if fill == "x" { #expect(sizes.contains(room) && sizes.contains(room + 1) && sizes.contains(room - 1)) }
    }

    @Test func generatedBodiesOnBothSidesOfTheRoomAreTheTreesBytes() {
        var fitted = 0
        var rewritten = 0
        for request in OpenPushBodyRawWriterTests.requests(count: 3_000) {
            let tree = Self.tree(request)
            #expect(request.bodyBytes == tree)
            if tree.count <= OpenPushRequest.bodyRoom { fitted += 1 } else { rewritten += 1 }
        }
        #expect(fitted > 100 && rewritten > 100, "fitted \(fitted), rewritten \(rewritten)")
    }
}
