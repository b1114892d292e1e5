import Foundation
import Testing
@testable import PushBridgeCore

/// The audit's translated copy is written and redacted over bytes (issue 31, item 1): the
/// envelope and each request's ``OpenPushRequest/bodyBytes`` written straight out, then the
/// secret spans replaced and every string swept with the body's scrubber. It must be byte for
/// byte what building the tree (``Redaction/openPushRequests(_:dialect:scrubber:fingerprint:)``,
/// kept as the oracle and for the shapes the bytes cannot take) and writing it gives.
struct TranslatedRedactionOverBytesTests {
    static let fingerprint = RedactionOverBytesTests.fingerprint

    /// The tree path's text.
    static func tree(_ requests: [OpenPushRequest], _ dialect: DialectName?, _ scrubber: SecretScrubber) -> String {
        JSONWriter.string(Redaction.openPushRequests(requests, dialect: dialect, scrubber: scrubber, fingerprint: fingerprint))
    }

    /// The byte path against the tree path for one translation: the same text.
    @discardableResult
    static func compare(_ requests: [OpenPushRequest], dialect: DialectName?, scrubber: SecretScrubber, _ name: String) -> Bool {
        let new = Redaction.openPushRequestsText(requests, dialect: dialect, scrubber: scrubber, fingerprint: fingerprint)
        let old = tree(requests, dialect, scrubber)
        #expect(new == old, "\(name) \(String(describing: dialect)): bytes gave\n\(new)\ntree gave\n\(old)")
        return new == old
    }

    /// Every golden case's translation (the cases that translate to at least one request).
    static func translatedCases() throws -> [(name: String, body: [UInt8], requests: [OpenPushRequest])] {
        var out: [(String, [UInt8], [OpenPushRequest])] = []
        for name in GoldenFixtureTests.cases {
            let dir = GoldenFixtureTests.root.appendingPathComponent(name)
            let body = Array(try Data(contentsOf: dir.appendingPathComponent("body.json")))
            let spec = try JSONParser.parse(Array(try Data(contentsOf: dir.appendingPathComponent("case.json"))))
            guard let path = spec.objectValue?["path"]?.stringValue else { continue }
            let context = FixtureContext.make(spec.objectValue?["context"]?.objectValue ?? JSONObject())
            guard let (_, translation) = Dialects.translate(path: path, body: body, context: context), !translation.requests.isEmpty else { continue }
            out.append((name, body, translation.requests))
        }
        return out
    }

    @Test(arguments: RedactionOverBytesTests.dialects)
    func everyFixturesTranslationRedactsOverBytesExactlyAsTheTreeDid(dialect: DialectName?) throws {
        var compared = 0
        for (name, body, requests) in try Self.translatedCases() {
            // The scrubber the audit sweeps the translation with: the body's secrets, and then
            // also half the translation's own strings, so the sweep has something to replace.
            let swept = Redaction.inboundSwept(ParsedBody(body), dialect: dialect, extraSecrets: ["a-configured-api-key"], fingerprint: Self.fingerprint)
            Self.compare(requests, dialect: dialect, scrubber: swept.scrubber, name)
            let own = requests.flatMap { RedactionOverBytesTests.someStrings(.object($0.body)) }
            let wider = SecretScrubber(secrets: Array(swept.secrets) + own, fingerprint: Self.fingerprint)
            Self.compare(requests, dialect: dialect, scrubber: wider, name + " (swept)")
            compared += 1
        }
        #expect(compared >= 60, "only \(compared) fixtures translate")
    }

    /// No fixture's translation falls back to the tree: the audit writes them all over bytes.
    @Test func noFixturesTranslationFallsBackToTheTree() throws {
        var overBytes = 0
        for (name, body, requests) in try Self.translatedCases() {
            for dialect in RedactionOverBytesTests.dialects {
                let swept = Redaction.inboundSwept(ParsedBody(body), dialect: dialect, extraSecrets: ["a-configured-api-key"], fingerprint: Self.fingerprint)
                let made = Redaction.openPushRequestsOverBytes(requests, dialect: dialect, scrubber: swept.scrubber, fingerprint: Self.fingerprint)
                #expect(made != nil, "\(name) \(String(describing: dialect)) fell back to the tree")
                if made != nil { overBytes += 1 }
            }
        }
        #expect(overBytes >= 240)
    }

    /// Pushwoosh device tokens become targeting ids: fingerprinted in the copy, never in clear.
    @Test func pushwooshTargetingIdsAreFingerprintedOverBytes() throws {
        var start = OpenPushStart(appId: "app", activityType: "T")
        start.includeSubscriptionIds = ["device-token-0001", "device-token-0002"]
        start.includeAliases = ["external_id": .array([.string("device-token-0003"), .null, .bool(true), .int(12345678)])]
        start.contents = ["en": .string("for device-token-0001")]
        let requests = [OpenPushRequest(.start(start))]
        let scrubber = SecretScrubber(secrets: ["device-token-0001"], fingerprint: Self.fingerprint)
        let made = try #require(Redaction.openPushRequestsOverBytes(requests, dialect: .pushwoosh, scrubber: scrubber, fingerprint: Self.fingerprint))
        let text = made
        #expect(!text.contains("device-token-000"), "\(text)")
        #expect(text.contains(Self.fingerprint("device-token-0002")))
        #expect(Self.compare(requests, dialect: .pushwoosh, scrubber: scrubber, "pushwoosh targeting"))
        // The same ids are OneSignal subscription ids, not tokens: kept.
        #expect(Self.compare(requests, dialect: .onesignal, scrubber: SecretScrubber(secrets: [], fingerprint: Self.fingerprint), "onesignal targeting"))
        #expect(Redaction.openPushRequestsText(requests, dialect: .onesignal, scrubber: SecretScrubber(secrets: [], fingerprint: Self.fingerprint),
                                               fingerprint: Self.fingerprint).contains("device-token-0002"))
    }

    /// An alias label that is itself a secret key (`devices: alias:pw_token`): the tree
    /// fingerprints its ids twice (as targeting ids, then under their key), so do the bytes.
    @Test func aSecretAliasLabelIsFingerprintedTwiceAsTheTreeDoes() throws {
        var start = OpenPushStart(appId: "app", activityType: "T")
        start.includeAliases = ["pw_token": .array([.string("device-token-0003"), .int(42424242), .bool(false), .null]),
                                "nested": .object(["device_token": .object(["x": .string("device-token-0004")])])]
        let aliased = [OpenPushRequest(.start(start))]
        let none = SecretScrubber(secrets: [], fingerprint: Self.fingerprint)
        let made = try #require(Redaction.openPushRequestsOverBytes(aliased, dialect: .pushwoosh, scrubber: none, fingerprint: Self.fingerprint))
        let text = made
        #expect(!text.contains("device-token-000"), "\(text)")
        #expect(text.contains(Self.fingerprint(Self.fingerprint("device-token-0003"))), "\(text)")
        #expect(Self.compare(aliased, dialect: .pushwoosh, scrubber: none, "secret alias label"))
    }

    /// The shape the bytes hand to the tree, whose answer the audit still gets: a sweep that
    /// changes an object key (the tree rebuilds the object).
    @Test func aSweptKeyIsLeftToTheTree() {
        var update = OpenPushUpdate(appId: "app", activityId: "act-1", event: "update")
        update.eventUpdates = ["secret-value-1": .string("a"), "other": .string("secret-value-1")]
        let keyed = [OpenPushRequest(.update(update))]
        let scrubber = SecretScrubber(secrets: ["secret-value-1"], fingerprint: Self.fingerprint)
        #expect(Redaction.openPushRequestsOverBytes(keyed, dialect: .onesignal, scrubber: scrubber, fingerprint: Self.fingerprint) == nil)
        #expect(Self.compare(keyed, dialect: .onesignal, scrubber: scrubber, "swept key"))
        #expect(!Redaction.openPushRequestsText(keyed, dialect: .onesignal, scrubber: scrubber, fingerprint: Self.fingerprint).contains("secret-value-1"))
    }

    /// Generated requests, for what no fixture has: secret keys at any depth of the free
    /// objects, escapes, non-ASCII, numbers and booleans under secret keys, several requests
    /// with send times. Deterministic (a fixed seed).
    @Test func generatedRequestsRedactOverBytesExactlyAsTheTreeDid() throws {
        typealias Gen = RedactionOverBytesGeneratedTests
        var g = Gen.Generator(state: 33)
        func text(_ g: inout Gen.Generator) -> String {
            (try? JSONParser.parse(Array(g.pick(Gen.strings).utf8)))?.stringValue ?? "plain"
        }
        func object(_ g: inout Gen.Generator) -> JSONObject? {
            guard g.next(4) > 0 else { return nil }
            let doc = "{" + (0..<g.next(4)).map { i in "\"" + g.pick(Gen.keys) + "\(i)\":" + Gen.document(&g, depth: 1) }.joined(separator: ",") + "}"
            return (try? JSONParser.parse(Array(doc.utf8)))?.objectValue
        }
        var compared = 0
        for _ in 0..<300 {
            var requests: [OpenPushRequest] = []
            for _ in 0..<(1 + g.next(3)) {
                let send = g.next(3) == 0 ? SendTime(unixSeconds: Int64(g.next(2_000_000_000)), sendDate: "2026-06-10 10:00", timezone: "UTC") : nil
                if g.next(2) == 0 {
                    var start = OpenPushStart(appId: "app", activityType: text(&g))
                    start.activityId = g.next(2) == 0 ? text(&g) : nil
                    start.name = g.next(2) == 0 ? text(&g) : nil
                    start.eventAttributes = object(&g)
                    start.eventUpdates = object(&g)
                    start.contents = g.next(2) == 0 ? ["en": .string(text(&g))] : nil
                    start.includeAliases = g.next(3) == 0 ? ["external_id": .array([.string(text(&g)), .string(text(&g))])] : nil
                    start.includeSubscriptionIds = g.next(3) == 0 ? [text(&g), text(&g)] : nil
                    start.idempotencyKey = g.next(2) == 0 ? text(&g) : nil
                    requests.append(OpenPushRequest(.start(start), sendAt: send))
                } else {
                    var update = OpenPushUpdate(appId: "app", activityId: text(&g), event: g.next(2) == 0 ? "end" : "update")
                    update.eventUpdates = object(&g)
                    update.headings = g.next(2) == 0 ? ["en": .string(text(&g))] : nil
                    requests.append(OpenPushRequest(.update(update), sendAt: send))
                }
            }
            let scrubber = SecretScrubber(secrets: ["sk_live_abcdef", "secret-value-1"], fingerprint: Self.fingerprint)
            for dialect in RedactionOverBytesTests.dialects {
                Self.compare(requests, dialect: dialect, scrubber: scrubber, "generated \(compared)")
            }
            compared += 1
        }
        #expect(compared == 300)
    }
}
