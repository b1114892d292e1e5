import Testing
@testable import PushBridgeCore

/// The request path's byte-level shortcuts (issue 23, CPU per request) give exactly what the
/// general rules they skip give: which keys are secret, how long a text renders under Liquid
/// and whether it needs escaping, whether a text holds a byte.
struct HotPathEquivalenceTests {
    /// The rule as written before the shortcut: normalize, then look the name up.
    static func fullRule(_ key: String, _ dialect: DialectName?) -> Bool {
        if key.utf8.count < 3 { return false }
        let name = Redaction.normalizedKey(key)
        if Redaction.secretNames.contains(name) || Redaction.secretSuffixes.contains(where: { name.hasSuffix($0) }) { return true }
        return dialect == .pushwoosh && name == "devices"
    }

    static let keys: [String] = {
        var keys = ["to", "id", "en", "headings", "contents", "app_id", "data", "name", "Devices", "devices_", "DEVICES.", "pushToStartToken",
                    "live_activity_token", "API-KEY", "Rest_Key", "x-secret ", "user_password", "Authorization", "bearer", "auth", "AUTH__",
                    "apiKeys", "tokens", "token_id", "tokenized", "___", "-", "Ṫoken", "toke\u{212A}", "rest\u{212A}ey", "ключ", "pass word",
                    "secret\u{301}", "tokeN\u{307}", "İ", "passwordİ", "apikey\u{0}", "filters", "include_aliases", "external_id"]
        for name in Array(Redaction.secretKeys) + Redaction.secretSuffixes + ["devices"] {
            keys += [name, name.uppercased(), "x_" + name, name + "_", name + "x", "my-" + name.uppercased() + " "]
        }
        return keys
    }()

    @Test(arguments: HotPathEquivalenceTests.keys)
    func aKeyIsSecretExactlyWhenTheFullRuleSaysSo(key: String) {
        for dialect in [DialectName.onesignal, .pushwoosh, .buzzkit, nil] {
            #expect(Redaction.isSecretKey(key, dialect: dialect) == Self.fullRule(key, dialect), "\(key) \(String(describing: dialect))")
        }
    }

    static let texts = ["plain", "", "Hi {{name}}", "{% if x %}", "a{ {b", "{{ '{{' }}", "line\r\nnext", "\r\n", "café", "e\u{301}",
                        "{\u{301}{", "{{\u{301}", "{%\u{301}", "x{", "{", "emoji 🇫🇷 {{x}}", "tab\there", "cr\ronly", String(repeating: "a", count: 600)]

    @Test(arguments: HotPathEquivalenceTests.texts)
    func liquidShortcutsGiveTheCharacterWiseAnswer(text: String) {
        let wantsEscape = text.contains("{{") || text.contains("{%")
        #expect((LiquidEscaping.escape(text) != nil) == wantsEscape, "\(text)")
        #expect(LiquidEscaping.characterCount(text) == text.count, "\(text)")
        if !wantsEscape { #expect(LiquidEscaping.rendered(text) == (text.count, false)) }
        #expect(!LiquidEscaping.mayHoldTags(text) ? !wantsEscape : true)
    }

    @Test func aRenderedLengthCountsEscapesAsTwoCharacters() {
        #expect(LiquidEscaping.rendered("a {{ '{{' }}b") == (5, false))
        #expect(LiquidEscaping.rendered("Hi {{name}}\r\n") == (12, true))
        #expect(LiquidEscaping.rendered("ab\r\ncd") == (5, false))
    }

    @Test func containsUTF8FindsTheByteWhereverTheStringLives() {
        let native = "path/with?query"
        #expect(native.containsUTF8(UInt8(ascii: "?")) && !native.containsUTF8(0))
        #expect("a\u{0}b".containsUTF8(0))
        #expect(!"".containsUTF8(0))
        let slice = native.dropFirst(5)
        #expect(slice.containsUTF8(UInt8(ascii: "?")) && !slice.containsUTF8(UInt8(ascii: "p")))
        let small = "ab?"
        #expect(small.containsUTF8(UInt8(ascii: "?")))
    }
}
