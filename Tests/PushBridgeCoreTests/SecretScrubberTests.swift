import Testing
@testable import PushBridgeCore

/// The one-pass secret sweep: what it replaces, and that its cost follows the text, not the
/// number of secrets times the text.
struct SecretScrubberTests {
    let fingerprint: (String) -> String = { "<\($0.utf8.count)>" }

    @Test func everyOccurrenceOfEverySecretIsReplacedWhole() {
        let scrubber = SecretScrubber(secrets: ["SECRET_1", "SECRET_12", "other-key", "short"], fingerprint: fingerprint)
        #expect(scrubber.scrub("a SECRET_12 b SECRET_1 c other-keyother-key", fingerprint: fingerprint) == "a <9> b <8> c <9><9>")
        // Overlapping occurrences become one region, named by its own text.
        let overlapping = SecretScrubber(secrets: ["abcdef", "defghi"], fingerprint: fingerprint)
        #expect(overlapping.scrub("xabcdefghiy", fingerprint: fingerprint) == "x<9>y")
        // Below the minimum length nothing is swept; no secret, no change.
        #expect(scrubber.scrub("short text", fingerprint: fingerprint) == "short text")
        #expect(SecretScrubber(secrets: [String](), fingerprint: fingerprint).scrub("plain", fingerprint: fingerprint) == "plain")
        // Non-ASCII secrets and text are matched by bytes.
        let unicode = SecretScrubber(secrets: ["ñandú_123"], fingerprint: fingerprint)
        #expect(unicode.scrub("é ñandú_123 é", fingerprint: fingerprint) == "é <11> é")
    }

    @Test func aTokenShapedHexRunIsReplacedWithoutBeingNamed() {
        let token = String(repeating: "ab12", count: 16)
        let scrubber = SecretScrubber(secrets: [String](), fingerprint: fingerprint)
        #expect(scrubber.scrub("event \(token)!", fingerprint: fingerprint) == "event <64>!")
        #expect(scrubber.scrub(String(token.dropLast()), fingerprint: fingerprint) == String(token.dropLast()), "63 hex digits are not a token")
    }

    @Test func keyNamesMatchWhateverTheirCaseAndSeparators() {
        for key in ["deviceToken", "pushToken", "apiKey", "Push-Token", "device_token", "DEVICE.TOKEN", "pushToStartToken", "x-api-key", "Authorization", "rest_api_key"] {
            #expect(Redaction.isSecretKey(key, dialect: .buzzkit), "\(key)")
        }
        for key in ["to", "tokens", "token_type", "name", "activityId", "devices"] {
            #expect(!Redaction.isSecretKey(key, dialect: .onesignal), "\(key)")
        }
        #expect(Redaction.isSecretKey("devices", dialect: .pushwoosh))
    }

    /// Thousands of secrets sharing a long prefix and a long text made of that prefix cost
    /// secrets × text × prefix with a sweep per secret (minutes); one pass costs the text.
    @Test func theWorstCaseSweepIsLinear() {
        let prefix = String(repeating: "a", count: 120)
        let tokens = (0..<400).map { prefix + "\($0)x" }
        var body = JSONObject()
        body["devices"] = .array(tokens.map(JSONValue.string))
        body["name"] = .string(String(repeating: prefix, count: 500) + tokens[7])
        let bytes = JSONWriter.bytes(.object(body))
        let started = ContinuousClock.now
        let out = Redaction.inboundBody(bytes, dialect: .pushwoosh, fingerprint: fingerprint)
        let elapsed = ContinuousClock.now - started
        #expect(!out.contains(tokens[7]))
        #expect(elapsed < .seconds(3), "\(bytes.count) bytes with \(tokens.count) secrets took \(elapsed)")
    }
}
