import Testing
@testable import PushBridgeCore

/// The byte scan of a document (``JSONSecretSpans``) keeps its open containers on the stack, 80
/// deep (issue 31: an array of them was an allocation per scan): a document nested deeper is
/// left to the tree, whose text the bytes must equal anyway. And the audit's envelope of the
/// translation is written into one array of a guessed room, then again into one of its exact
/// size when it does not fit (``Redaction/openPushEnvelopeBytes(_:)``).
struct RedactionScanDepthTests {
    static let fingerprint = RedactionOverBytesTests.fingerprint
    static let scrubber = SecretScrubber(secrets: ["sk_live_abcdef"], fingerprint: fingerprint)

    /// A start whose event attributes nest `depth` objects, a secret key at the bottom.
    static func nested(_ depth: Int) -> [OpenPushRequest] {
        var value: JSONValue = .object(["api_key": .string("sk_live_abcdef"), "note": .string("kept sk_live_abcdef")])
        for level in 1..<depth { value = .object(["level\(level)": value]) }
        var start = OpenPushStart(appId: "app", activityType: "order")
        start.eventAttributes = value.objectValue
        return [OpenPushRequest(.start(start))]
    }

    /// The depth of the envelope's bytes: the array, the request, its body, then the attributes.
    @Test func aTranslationNestedPastTheScansStackIsLeftToTheTreeAndWrittenAsTheTreeWritesIt() {
        // 3 + 77 = 80 levels: scanned over bytes; 3 + 78 = 81: left to the tree.
        #expect(Redaction.openPushRequestsOverBytes(Self.nested(77), dialect: .onesignal, scrubber: Self.scrubber, fingerprint: Self.fingerprint) != nil)
        #expect(Redaction.openPushRequestsOverBytes(Self.nested(78), dialect: .onesignal, scrubber: Self.scrubber, fingerprint: Self.fingerprint) == nil)
        for depth in [1, 40, 77, 78, 120] {
            let requests = Self.nested(depth)
            let text = Redaction.openPushRequestsText(requests, dialect: .onesignal, scrubber: Self.scrubber, fingerprint: Self.fingerprint)
            #expect(text == TranslatedRedactionOverBytesTests.tree(requests, .onesignal, Self.scrubber), "depth \(depth)")
            #expect(!text.contains("sk_live_abcdef"), "depth \(depth)")
        }
    }

    /// The scan itself: 80 open containers are scanned, the 81st gives nil (the caller then
    /// redacts the tree); unbalanced closers still give nil.
    @Test func theScanHoldsEightyOpenContainers() {
        func scans(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBufferPointer { JSONSecretSpans($0, dialect: nil) != nil }
        }
        #expect(scans(String(repeating: "[", count: 80) + String(repeating: "]", count: 80)))
        #expect(!scans(String(repeating: "[", count: 81) + String(repeating: "]", count: 81)))
        #expect(scans(String(repeating: "{\"a\":", count: 79) + "{\"token\":\"x\"}" + String(repeating: "}", count: 79)))
        #expect(!scans("[]]"))
        #expect(!scans("[[]"))
    }

    /// Envelopes that fit their room and envelopes that do not (a body far over
    /// ``OpenPushRequest/bodyRoom``, one request among several, a send time): the tree's bytes.
    @Test func anEnvelopeOverItsRoomIsWrittenAgainAtItsSize() {
        var big = OpenPushStart(appId: "app", activityType: "order")
        big.name = String(repeating: "n\u{e9}\"", count: 900)
        big.eventAttributes = ["api_key": .string("sk_live_abcdef")]
        let small = OpenPushStart(appId: "app", activityType: "order")
        let send = SendTime(unixSeconds: 1_780_000_000, sendDate: "2026-06-10 10:00", timezone: "UTC")
        let cases: [[OpenPushRequest]] = [
            [OpenPushRequest(.start(small))],
            [OpenPushRequest(.start(big))],
            [OpenPushRequest(.start(small)), OpenPushRequest(.start(big), sendAt: send), OpenPushRequest(.start(small))],
            [],
        ]
        for (i, requests) in cases.enumerated() {
            let bytes = Redaction.openPushEnvelopeBytes(requests)
            let tree = JSONValue.array(requests.map { request in
                var members: [JSONMember] = [JSONMember("method", .string(request.method)), JSONMember("path", .string(request.path)),
                                             JSONMember("body", .object(request.body))]
                if let sendAt = request.sendAt { members.append(JSONMember("send_at", .int(sendAt.unixSeconds))) }
                return .object(JSONObject(members: members))
            })
            #expect(bytes == JSONWriter.bytes(tree), "case \(i): \(String(decoding: bytes, as: UTF8.self))")
        }
    }
}
