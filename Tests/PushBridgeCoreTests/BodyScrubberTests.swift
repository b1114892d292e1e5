import Testing
@testable import PushBridgeCore

/// The audit's redaction over bytes sweeps with the scrubber the request already made for its
/// body's secrets and extra secrets (``BodyScrubber``, issue 31's sixth allocation pass: no
/// automaton built again per request), and only when the body's secrets are exactly those it was
/// made for: a scrubber made for other secrets never decides what is swept.
struct BodyScrubberTests {
    static let fingerprint = RedactionOverBytesTests.fingerprint
    /// The configured key and the presented credential: swept wherever they appear.
    static let extra = ["a-configured-api-key", "the-presented-credential"]

    /// Bodies without a secret under a key (the OneSignal start's case: only the extra secrets
    /// are swept) and with ones (a Pushwoosh `auth`, device tokens), each mentioning an extra
    /// secret and a decoy text in free text.
    static let bodies: [(DialectName, String)] = [
        (.onesignal, #"{"event":"start","activity_id":"a-1","contents":{"en":"sent with a-configured-api-key"},"note":"decoy-text-123"}"#),
        (.pushwoosh, #"{"request":{"auth":"AUTH-SECRET-42","devices":["d1-device-token"],"note":"decoy-text-123 the-presented-credential"}}"#),
        (.onesignal, #"{"app_id":"x","api_key":"body-secret-key","contents":{"en":"body-secret-key again, decoy-text-123"}}"#),
    ]

    /// The body's secrets as the request path finds them at authentication.
    static func found(_ text: String, _ dialect: DialectName) throws -> Set<String> {
        Redaction.secrets(in: try JSONParser.parse(Array(text.utf8)), dialect: dialect)
    }

    @Test(arguments: bodies.indices)
    func theRequestsScrubberGivesTheSameRowAsOneMadeAgain(_ index: Int) throws {
        let (dialect, text) = Self.bodies[index]
        let found = try Self.found(text, dialect)
        let made = BodyScrubber(secrets: found, scrubber: SecretScrubber(secrets: Array(found) + Self.extra, fingerprint: Self.fingerprint))
        let plain = Redaction.inboundSwept(ParsedBody(Array(text.utf8)), dialect: dialect, extraSecrets: Self.extra, fingerprint: Self.fingerprint)
        let reused = Redaction.inboundSwept(ParsedBody(Array(text.utf8)), dialect: dialect, extraSecrets: Self.extra, made: made, fingerprint: Self.fingerprint)
        #expect(reused.body == plain.body)
        #expect(reused.secrets == plain.secrets)
        // The extra secrets are swept in the row either way.
        #expect(!reused.body.contains("a-configured-api-key") && !reused.body.contains("the-presented-credential"))
        let translated = #"{"note":"a-configured-api-key AUTH-SECRET-42 body-secret-key"}"#
        #expect(reused.scrubber.scrub(translated, fingerprint: Self.fingerprint) == plain.scrubber.scrub(translated, fingerprint: Self.fingerprint))
    }

    /// The scrubber given is the one swept with when the secrets match: one made with a decoy
    /// sweeps the decoy (no second automaton was built).
    @Test(arguments: bodies.indices)
    func aScrubberForTheSameSecretsIsTheOneSweptWith(_ index: Int) throws {
        let (dialect, text) = Self.bodies[index]
        let found = try Self.found(text, dialect)
        let decoy = BodyScrubber(secrets: found, scrubber: SecretScrubber(secrets: Array(found) + Self.extra + ["decoy-text-123"], fingerprint: Self.fingerprint))
        let swept = Redaction.inboundSwept(ParsedBody(Array(text.utf8)), dialect: dialect, extraSecrets: Self.extra, made: decoy, fingerprint: Self.fingerprint)
        #expect(!swept.body.contains("decoy-text-123"), "\(swept.body)")
        #expect(swept.body.contains(Self.fingerprint("decoy-text-123")))
    }

    /// A scrubber made for other secrets than the body's is not used: the row is the one made
    /// without it, the body's own secrets swept and the other scrubber's decoy left alone.
    @Test(arguments: bodies.indices)
    func aScrubberForOtherSecretsIsNotUsed(_ index: Int) throws {
        let (dialect, text) = Self.bodies[index]
        let found = try Self.found(text, dialect)
        var other = found
        other.insert("not-in-this-body")
        let stale = BodyScrubber(secrets: other, scrubber: SecretScrubber(secrets: ["decoy-text-123"], fingerprint: Self.fingerprint))
        let plain = Redaction.inboundSwept(ParsedBody(Array(text.utf8)), dialect: dialect, extraSecrets: Self.extra, fingerprint: Self.fingerprint)
        let swept = Redaction.inboundSwept(ParsedBody(Array(text.utf8)), dialect: dialect, extraSecrets: Self.extra, made: stale, fingerprint: Self.fingerprint)
        #expect(swept.body == plain.body)
        #expect(swept.body.contains("decoy-text-123"))
        #expect(!swept.body.contains("a-configured-api-key"))
        for secret in found { #expect(!swept.body.contains(secret), "\(secret) left in \(swept.body)") }
    }
}
