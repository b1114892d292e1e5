import Foundation
import PushBridgeTestSupport
import PushBridgeCore
import Testing

/// The parse-once APIs give exactly what the byte APIs give.
struct ParsedBodyTests {
    private let fingerprint: (String) -> String = { "fp(\($0.count))" }

    static let bodies: [String] = {
        let root = Repository.fixtures
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        var out = names.sorted().compactMap { try? String(contentsOf: root.appendingPathComponent($0).appendingPathComponent("body.json"), encoding: .utf8) }
        out += ["", "[]", "{", "null", #"{"request":{"auth":"SECRET_API_TOKEN","notifications":[{"devices":["tokA_111111"]}]}}"#]
        return out
    }()

    @Test func translationOfAParsedBodyEqualsTranslationOfItsBytes() {
        let context = TranslationContext(now: 1_700_000_000)
        let paths = ["/apps/app-1/activities/activity/Delivery", "/apps/app-1/live_activities/act-1/notifications",
                     "/json/1.3/startLiveActivity", "/json/1.3/updateLiveActivity", "/v1/live-activities/send"]
        #expect(Self.bodies.count > 10)
        for path in paths {
            guard let route = InboundRoute.match(path: path) else { Issue.record("no route for \(path)"); continue }
            let dialect = Dialects.named(route.dialect)
            for body in Self.bodies {
                let bytes = Array(body.utf8)
                let fromBytes = dialect.translate(route: route, body: bytes, context: context)
                let fromParsed = dialect.translate(route: route, parsed: ParsedBody(bytes), context: context)
                #expect(fromBytes == fromParsed, "\(path) \(body.prefix(60))")
            }
        }
    }

    @Test func inboundRedactionOfAParsedBodyEqualsTheByteAPIs() {
        for dialect in [DialectName.onesignal, .pushwoosh, .buzzkit] {
            for body in Self.bodies {
                let bytes = Array(body.utf8)
                let (text, secrets) = Redaction.inbound(ParsedBody(bytes), dialect: dialect, fingerprint: fingerprint)
                #expect(text == Redaction.inboundBody(bytes, dialect: dialect, fingerprint: fingerprint))
                #expect(secrets == Redaction.secrets(inInbound: bytes, dialect: dialect))
            }
        }
    }

    /// The byte sweep (ASCII secrets) replaces what the character sweep replaces, longest first.
    @Test func byteSweepMatchesCharacterSweepForASCIISecrets() {
        let secrets: Set<String> = ["tok_123456", "tok_1234567890", "KEY_abcdef"]
        let value = JSONValue.object(JSONObject(members: [
            JSONMember("a", .string("x tok_1234567890 y tok_123456 z KEY_abcdefKEY_abcdef")),
            JSONMember("KEY_abcdef", .array([.string("é tok_123456 ü"), .int(3), .string("short")])),
            JSONMember("b", .string("no secret here")),
        ]))
        let swept = JSONWriter.string(Redaction.sweep(value, secrets: secrets, fingerprint: fingerprint))
        #expect(swept == #"{"a":"x fp(14) y fp(10) z fp(10)fp(10)","fp(10)":["é fp(10) ü",3,"short"],"b":"no secret here"}"#)
        // Non-ASCII secrets still go through the character path.
        let other = Redaction.sweep(.string("a ñandú_123 b"), secrets: ["ñandú_123"], fingerprint: fingerprint)
        #expect(other == .string("a fp(9) b"))
    }
}
