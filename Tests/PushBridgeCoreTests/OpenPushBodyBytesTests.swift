import Foundation
import Testing
@testable import PushBridgeCore

/// The OpenPush body written straight into bytes (``OpenPushRequest/bodyBytes``, issue 31
/// item 1) is byte for byte what writing the body's tree gave, for every request every golden
/// fixture translates to and for bodies with every optional field, escapes and non-ASCII text.
struct OpenPushBodyBytesTests {
    @Test func everyFixturesRequestsWriteTheSameBytesAsTheirTree() throws {
        var compared = 0
        for name in GoldenFixtureTests.cases {
            let dir = GoldenFixtureTests.root.appendingPathComponent(name)
            let body = Array(try Data(contentsOf: dir.appendingPathComponent("body.json")))
            let spec = try JSONParser.parse(Array(try Data(contentsOf: dir.appendingPathComponent("case.json"))))
            let path = try #require(spec.objectValue?["path"]?.stringValue)
            let context = FixtureContext.make(spec.objectValue?["context"]?.objectValue ?? JSONObject())
            let (_, translation) = try #require(Dialects.translate(path: path, body: body, context: context))
            for request in translation.requests {
                #expect(request.bodyBytes == JSONWriter.bytes(.object(request.body)), "\(name)")
                compared += 1
            }
        }
        #expect(compared >= 80, "only \(compared) requests compared")
    }

    @Test func aBodyWithEveryFieldWritesTheSameBytesAsItsTree() throws {
        var start = OpenPushStart(appId: "app", activityType: "T")
        start.activityId = "a\"b\\c\u{1}"
        start.name = "Ünïcode 👨‍🍳 \n"
        start.eventAttributes = ["k": .array([.null, .bool(true), .double(1.5)])]
        start.eventUpdates = ["s": .string("x")]
        start.headings = ["en": .string("t")]
        start.contents = ["en": .string("{{ '{{' }}")]
        start.includeAliases = ["external_id": .array([.string("u1"), .string("u2")])]
        start.includeSubscriptionIds = ["s1", "s\"2"]
        start.includedSegments = []
        start.excludedSegments = ["e"]
        start.filters = [.object(["field": .string("tag")])]
        start.staleDate = 1
        start.dismissalDate = -2
        start.priority = 5
        start.relevanceScore = JSONNumber(0.5)
        start.iosSound = "a"
        start.sound = "b"
        start.idempotencyKey = "k"
        var update = OpenPushUpdate(appId: "app", activityId: "id", event: "end")
        update.eventUpdates = [:]
        update.name = "n"
        update.headings = ["en": .string("h")]
        update.contents = ["en": .string("c")]
        update.staleDate = 3
        update.dismissalDate = 4
        update.priority = 10
        update.relevanceScore = JSONNumber(Int64(1))
        update.iosSound = "s"
        update.sound = "t"
        for request in [OpenPushRequest(.start(start)), OpenPushRequest(.update(update)),
                        OpenPushRequest(.start(OpenPushStart(appId: "a", activityType: "T"))),
                        OpenPushRequest(.update(OpenPushUpdate(appId: "a", activityId: "i")))] {
            let tree = JSONWriter.bytes(.object(request.body))
            #expect(request.bodyBytes == tree, "\(String(decoding: request.bodyBytes, as: UTF8.self)) vs \(String(decoding: tree, as: UTF8.self))")
        }
    }
}
