import Foundation
import PushBridgeTestSupport
import Testing
@testable import PushBridgeCore

/// The audit's redacted body is made over the caller's bytes (issue 31, item 1): the secret
/// spans replaced, nothing parsed into a tree again or written again. It must be byte for byte
/// what redacting the parsed tree and writing it gives (``Redaction/inboundSweptByTree``, the
/// path it replaced, kept as the oracle and for the one shape it cannot take: a sweep that
/// changes an object key), for every JSON file under `fixtures/` and every dialect.
struct RedactionOverBytesTests {
    /// A stand-in for SHA-256 that the core can run: deterministic, different per text.
    static func fingerprint(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text.utf8 { hash = (hash ^ UInt64(b)) &* 0x100_0000_01B3 }
        let hex = String(hash, radix: 16)
        return "sha256:" + String(repeating: "0", count: 16 - hex.count) + hex.prefix(12)
    }

    /// Every JSON file under `fixtures/` (bodies, cases, expected translations, seeds).
    static let fixtureFiles: [URL] = {
        let walker = FileManager.default.enumerator(at: Repository.fixtures, includingPropertiesForKeys: nil)
        var files: [URL] = []
        while let url = walker?.nextObject() as? URL {
            if url.pathExtension == "json" { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }()

    static let dialects: [DialectName?] = [.onesignal, .pushwoosh, .buzzkit, nil]

    /// Every other string value of six bytes or more in a document: swept as if they were
    /// the caller's credential or configured keys, so the sweep has something to replace.
    static func someStrings(_ value: JSONValue) -> [String] {
        var all: [String] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .string(let text) where text.utf8.count >= 6: all.append(text)
            case .array(let items): items.forEach(walk)
            case .object(let object): object.members.forEach { walk($0.value) }
            default: break
            }
        }
        walk(value)
        return all.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
    }

    /// The byte path against the tree path for one body: same text, same secrets found.
    static func compare(_ bytes: [UInt8], dialect: DialectName?, extraSecrets: [String], _ name: String) -> Bool {
        let body = ParsedBody(bytes)
        let new = Redaction.inboundSwept(body, dialect: dialect, extraSecrets: extraSecrets, fingerprint: fingerprint)
        guard let value = body.value else {
            #expect(new.body.hasPrefix("{\"unparseable\":true"), "\(name)")
            return true
        }
        let old = Redaction.inboundSweptByTree(value, dialect: dialect, extraSecrets: extraSecrets, fingerprint: fingerprint)
        #expect(new.body == old.body, "\(name) \(String(describing: dialect)): bytes gave\n\(new.body)\ntree gave\n\(old.body)")
        #expect(new.secrets == old.secrets, "\(name) \(String(describing: dialect))")
        return new.body == old.body && new.secrets == old.secrets
    }

    @Test func thereAreFixturesToCompare() {
        #expect(Self.fixtureFiles.count >= 300, "fixtures/ has \(Self.fixtureFiles.count) JSON files")
    }

    @Test(arguments: RedactionOverBytesTests.dialects)
    func everyFixtureRedactsOverItsBytesExactlyAsTheTreeDid(dialect: DialectName?) throws {
        var compared = 0
        for url in Self.fixtureFiles {
            let bytes = Array(try Data(contentsOf: url))
            let name = url.path.replacingOccurrences(of: Repository.fixtures.path + "/", with: "")
            _ = Self.compare(bytes, dialect: dialect, extraSecrets: [], name)
            let extra = ParsedBody(bytes).value.map(Self.someStrings) ?? []
            _ = Self.compare(bytes, dialect: dialect, extraSecrets: extra + ["a-configured-api-key"], name + " (swept)")
            compared += 1
        }
        #expect(compared >= 300)
    }

    /// What the old path never did: the fixtures' bodies are redacted without the tree, none
    /// falls back to it (only a sweep that changes a key does, and no fixture has one).
    @Test func noFixtureFallsBackToTheTree() throws {
        var overBytes = 0
        for url in Self.fixtureFiles where url.lastPathComponent == "body.json" {
            let bytes = Array(try Data(contentsOf: url))
            guard ParsedBody(bytes).value != nil else { continue }
            for dialect in Self.dialects {
                let made = Redaction.redactedBytes(bytes, dialect: dialect, extraSecrets: ["a-configured-api-key"], fingerprint: Self.fingerprint)
                #expect(made != nil, "\(url.path) \(String(describing: dialect)) fell back to the tree")
                if made != nil { overBytes += 1 }
            }
        }
        #expect(overBytes >= 400)
    }

    /// The shapes where re-serializing differs from the caller's bytes, each made equal.
    static let shapes: [String] = [
        // Whitespace and line breaks outside strings, kept inside them.
        "{\n  \"app_id\" : \"a b\",\n\t\"api_key\": \"sk_live_123456\" ,\"n\": [ 1 , 2.50 , -0e+3 ] }\r\n",
        // Escapes the writer writes otherwise (`\/`, `\u00e9`, `\b`) or the same (`\"`, `\n`).
        #"{"name":"a\/b \u00e9 \b \" \n \ud83d\ude00","token":"tok\/en-value\u0041"}"#,
        // Secret numbers, booleans and null, nested containers under a secret key.
        #"{"device_token":12345678901234,"auth":true,"rest_api_key":null,"push_token":{"a":["x1234567",false,null,{"k":3.5}]}}"#,
        // A secret swept from other strings, an escaped secret key, a secret inside an array of objects.
        #"{"items":[{"token":"abcdef123"},{"note":"abcdef123 again"}],"t\u006fken":"zyxwvu987","text":"zyxwvu987!"}"#,
        // Pushwoosh devices, a 64-hex run where no key names it, unicode keys and values.
        #"{"request":{"auth":"AUTH-999999","devices":["dev-000001","dev-000002"],"notifications":[{"content":"dev-000001 café","data":{"ключ":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}]}}"#,
        // Top-level scalars and empty containers.
        #""just a string AUTH-999999""#, "42", "[]", "{}", " [ {} , [ ] ] ",
    ]

    @Test(arguments: RedactionOverBytesTests.shapes)
    func shapesWhereTheBytesDifferFromTheWriterComeOutTheSame(text: String) {
        for dialect in Self.dialects {
            #expect(Self.compare(Array(text.utf8), dialect: dialect, extraSecrets: ["AUTH-999999"], text))
            #expect(Redaction.redactedBytes(Array(text.utf8), dialect: dialect, extraSecrets: ["AUTH-999999"], fingerprint: Self.fingerprint) != nil, "\(text)")
        }
    }

    /// The redacted text is written into a string of a guessed room, and again at its counted
    /// size when the sweep makes it longer than that (``Redaction/writtenText(_:_:hashed:scrubber:fingerprint:)``):
    /// a body whose every word is a secret grows about fourfold, past the room, and still comes
    /// out as the tree writes it; one that fits comes out the same in a single write.
    @Test func aSweepPastTheGuessedRoomIsWrittenAgainAtItsSize() {
        let words = (0..<120).map { "tok\($0 % 10)xyz" }
        let grown = #"{"note":""# + words.joined(separator: " ") + #"","api_key":"sk_live_abcdef"}"#
        let small = #"{"note":"tok1xyz once","api_key":"sk_live_abcdef"}"#
        let secrets = (0..<10).map { "tok\($0)xyz" }
        for text in [grown, small] {
            let bytes = Array(text.utf8)
            let made = Redaction.redactedBytes(bytes, dialect: .onesignal, extraSecrets: secrets, fingerprint: Self.fingerprint)
            #expect(made != nil, "\(text)")
            #expect(Self.compare(bytes, dialect: .onesignal, extraSecrets: secrets, text))
            #expect(!(made?.body.contains("tok1xyz") ?? true))
        }
        let grownOut = Redaction.redactedBytes(Array(grown.utf8), dialect: .onesignal, extraSecrets: secrets, fingerprint: Self.fingerprint)?.body ?? ""
        // Past the room (one and a half times the body, 80 bytes a secret, 64 more): the second write.
        #expect(grownOut.utf8.count > grown.utf8.count * 3 / 2 + 80 + 64, "\(grownOut.utf8.count) bytes did not pass the room")
        // The same text when written through the function itself.
        let direct = Array(grown.utf8).withUnsafeBufferPointer { buffer -> String? in
            guard let scan = JSONSecretSpans(buffer, dialect: .onesignal) else { return nil }
            var found = Set<String>()
            guard let hashed = Redaction.secretLeaves(buffer, scan, collecting: &found) else { return nil }
            let scrubber = SecretScrubber(secrets: Array(found) + secrets, fingerprint: Self.fingerprint)
            return Redaction.writtenText(buffer, scan, hashed: hashed, scrubber: scrubber, fingerprint: Self.fingerprint)
        }
        #expect(direct == grownOut)
    }

    /// A key the sweep changes: the tree rebuilds the object (two keys that become one keep
    /// the later value), so the byte path hands it over, and the answer is still the tree's.
    @Test func aSweptKeyIsLeftToTheTree() {
        let text = #"{"token":"secret-value-1","secret-value-1":"a","x":{"secret-value-1 ":1}}"#
        #expect(Redaction.redactedBytes(Array(text.utf8), dialect: .onesignal, extraSecrets: [], fingerprint: Self.fingerprint) == nil)
        #expect(Self.compare(Array(text.utf8), dialect: .onesignal, extraSecrets: [], text))
        let out = Redaction.inboundSwept(ParsedBody(Array(text.utf8)), dialect: .onesignal, fingerprint: Self.fingerprint).body
        #expect(!out.contains("secret-value-1"))
    }
}

/// The byte rule for secret keys the scan uses gives what ``Redaction/isSecretKey(_:dialect:)``
/// gives, for every ASCII key ``HotPathEquivalenceTests`` checks that rule with, and what the
/// rule on the normalized name gives (``Redaction/isSecretName(_:dialect:)``): the string rule
/// tells ASCII keys on their bytes too, so the name is the oracle both are held to.
struct SecretKeyBytesTests {
    static let asciiKeys = HotPathEquivalenceTests.keys.filter { $0.utf8.allSatisfy { $0 < 0x80 } }

    @Test func thereAreKeysToCompare() {
        #expect(Self.asciiKeys.count >= 100)
    }

    @Test(arguments: SecretKeyBytesTests.asciiKeys)
    func anASCIIKeyIsSecretOnItsBytesExactlyWhenTheRuleSaysSo(key: String) {
        for dialect in RedactionOverBytesTests.dialects {
            let onBytes = Array(key.utf8).withUnsafeBufferPointer { Redaction.isSecretKey(ascii: $0, dialect: dialect) }
            #expect(onBytes == Redaction.isSecretKey(key, dialect: dialect), "\(key) \(String(describing: dialect))")
            let byName = key.utf8.count >= 3 && Redaction.isSecretName(Redaction.normalizedKey(key), dialect: dialect)
            #expect(onBytes == byName, "\(key) \(String(describing: dialect)): by name \(byName)")
        }
    }
}

/// Generated documents, for the shapes no fixture has: escapes in keys and values, secrets
/// under secret keys at any depth, numbers and booleans under them, whitespace anywhere a
/// caller may put it. Deterministic (a fixed seed), so a failure names a document that stays.
struct RedactionOverBytesGeneratedTests {
    /// SplitMix64: small, seeded, the same on every machine.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        mutating func pick(_ items: [String]) -> String { items[next(items.count)] }
    }

    static let keys = ["token", "auth", "devices", "name", "Push-Token", "x_api_key", "content", #"t\u006fken"#, "é", "data",
                       "include_aliases", "secret-value-1", "Authorization", "idempotency_key", #"a\"b"#, "rest_key"]
    static let strings = [#""secret-value-1""#, #""plain""#, #""with \"quote\" and \\ slash \/""#, #""\u00e9t\u00e9 \ud83d\ude00""#,
                          #""tab\there\nline""#, "\"" + String(repeating: "ab12", count: 16) + "\"", #""see secret-value-1 here""#,
                          #""café ✓""#, #""""#, #""sk_live_abcdef""#]
    static let scalars = ["0", "-1.5e3", "12345678901234", "true", "false", "null"]
    static let spaces = ["", "", "", " ", "\n  ", "\t", "\r\n"]

    static func document(_ g: inout Generator, depth: Int = 0) -> String {
        let space = { (g: inout Generator) in g.pick(spaces) }
        switch depth >= 3 ? 2 + g.next(2) : g.next(4) {
        case 0:
            var used = Set<String>()
            var members: [String] = []
            for _ in 0..<g.next(5) {
                let key = g.pick(keys)
                guard used.insert(key).inserted else { continue }
                members.append(space(&g) + "\"" + key + "\"" + space(&g) + ":" + space(&g) + document(&g, depth: depth + 1) + space(&g))
            }
            return "{" + members.joined(separator: ",") + "}"
        case 1:
            return "[" + (0..<g.next(4)).map { _ in space(&g) + document(&g, depth: depth + 1) + space(&g) }.joined(separator: ",") + "]"
        case 2:
            return g.pick(strings)
        default:
            return g.pick(scalars)
        }
    }

    @Test func generatedDocumentsRedactOverTheirBytesExactlyAsTheTreeDid() {
        var g = Generator(state: 31)
        var parsed = 0
        for _ in 0..<600 {
            let text = Self.document(&g)
            guard ParsedBody(Array(text.utf8)).value != nil else { continue }
            parsed += 1
            for dialect in RedactionOverBytesTests.dialects {
                _ = RedactionOverBytesTests.compare(Array(text.utf8), dialect: dialect, extraSecrets: ["secret-value-1", "sk_live_abcdef"], text)
            }
        }
        #expect(parsed >= 400, "only \(parsed) of the generated documents parse")
    }
}
