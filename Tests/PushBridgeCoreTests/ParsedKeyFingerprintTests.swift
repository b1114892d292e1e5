import Testing
@testable import PushBridgeCore

/// The parser keeps each key's fingerprint in its member and a ``FieldReader`` takes it instead
/// of fingerprinting the key's `String` again (issue 31, branch `translate4`). The fingerprint
/// carried must be the one the reader made before (the old path, kept here as the oracle:
/// `KeyFingerprint(key)`), for every kind of key the parser reads: plain ASCII, escaped
/// (`\"`, `\\`, `\/`, `\n`, `\u0061`, `\u00e9`, a surrogate pair), raw non-ASCII, combining
/// marks, the Kelvin sign, DEL, empty, long, in objects of more than 16 members (the parser's
/// other duplicate check); and a reader over the parsed object must read what a reader over the
/// same members made without fingerprints reads.
struct ParsedKeyFingerprintTests {
    typealias G = RedactionOverBytesGeneratedTests.Generator

    /// Keys as written in the document (JSON source text, without the quotes).
    static let keys = ["event", "activity_id", "a", "", "included_segments", #"a\"b"#, #"back\\slash"#, #"sl\/ash"#, #"line\nbreak"#,
                       #"\u0061ctivity_id"#, #"caf\u00e9"#, "café", "cafe\u{301}", #"smile\ud83d\ude00"#, "😀", "\u{212A}ey", "Key",
                       "del\u{7F}", "tab\u{7F}x", "x", "headings", String(repeating: "k", count: 40), "K", #"\u004b"#, "ios_sound"]

    /// A document: objects of 0–24 members (keys made unique by a suffix), nested up to two levels.
    static func object(_ g: inout G, depth: Int) -> String {
        let count = g.next(25)
        var members: [String] = []
        for i in 0..<count {
            let key = g.pick(keys) + (g.next(3) == 0 ? "" : "_\(i)")
            let value: String
            switch g.next(depth > 0 ? 5 : 3) {
            case 0: value = "\"v\(i)\""
            case 1: value = "null"
            case 2: value = "\(i)"
            case 3: value = object(&g, depth: depth - 1)
            default: value = "[\(object(&g, depth: depth - 1))]"
            }
            members.append("\"\(key)\":\(value)")
        }
        return "{" + members.joined(separator: g.next(2) == 0 ? "," : ",\n ") + "}"
    }

    /// Every object in a value, depth first.
    static func objects(_ value: JSONValue, into out: inout [JSONObject]) {
        switch value {
        case .object(let o):
            out.append(o)
            for m in o.members { objects(m.value, into: &out) }
        case .array(let a):
            for v in a { objects(v, into: &out) }
        default: break
        }
    }

    @Test func theParsersFingerprintIsTheKeysAndTheReaderReadsTheSame() throws {
        var g = G(state: 59)
        var documents = 0, members = 0, escaped = 0, nonASCII = 0, big = 0
        while documents < 1_500 {
            let text = Self.object(&g, depth: 2)
            // Keys made unique by their suffix may still collide (the same key drawn twice
            // without one): such documents are rejected by the parser, and skipped here.
            guard let parsed = try? JSONParser.parse(text) else { continue }
            documents += 1
            var all: [JSONObject] = []
            Self.objects(parsed, into: &all)
            for object in all {
                if object.count > 16 { big += 1 }
                for m in object.members {
                    members += 1
                    if m.key.utf8.contains(where: { $0 >= 0x80 }) { nonASCII += 1 }
                    if m.key.contains("\"") || m.key.contains("\\") || m.key.contains("\n") { escaped += 1 }
                    #expect(m.fingerprint != .notMade, "\(m.key)")
                    #expect(m.fingerprint == KeyFingerprint(m.key), "\(m.key): \(m.fingerprint.bits) vs \(KeyFingerprint(m.key).bits)")
                }
                // A reader over the parsed members, and one over the same members made without a
                // fingerprint (the old path): every lookup, by each key and by look-alikes, the same.
                var carried = FieldReader(object)
                var remade = FieldReader(JSONObject(members: object.members.map { JSONMember($0.key, $0.value) }))
                var probes = object.keys.filter { _ in g.next(2) == 0 }
                probes += ["K", "k", "cafe", "café", "event", "a\"b", "smile😀", "Key", ""]
                for probe in probes {
                    #expect(carried.raw(FieldKey(probe)) == remade.raw(FieldKey(probe)), "\(probe)")
                }
                #expect(carried.unread == remade.unread)
                #expect(carried.unread.map(\.key) == remade.unread.map(\.key))
            }
        }
        // The generated documents reach every kind of key, and the parser's check for big objects.
        #expect(members > 8_000, "\(members)")
        #expect(escaped > 1_000, "\(escaped)")
        #expect(nonASCII > 1_000, "\(nonASCII)")
        #expect(big > 100, "\(big)")
    }

    /// A member's key changed after the parse no longer carries the parser's fingerprint.
    @Test func aKeyChangedAfterTheParseIsFingerprintedAgain() throws {
        guard case .object(let o) = try JSONParser.parse(#"{"event":"start","K":1}"#) else { Issue.record("not an object"); return }
        var m = o.members[0]
        #expect(m.fingerprint == KeyFingerprint("event"))
        m.key = "name"
        #expect(m.fingerprint == .notMade)
        var r = FieldReader(JSONObject(members: [m, o.members[1]]))
        #expect(r.raw("name") == .string("start"))
        #expect(r.raw("event") == nil)
        #expect(r.raw("\u{212A}") == .number(JSONNumber(Int64(1))))
    }
}
