import Testing
@testable import PushBridgeCore

/// The parser finds a string's end eight bytes at a time (issue 31 item 1) and gives a body's
/// known keys as ``InternedKeys``' `String`s. Each byte that ends the fast run (`"`, `\`, a
/// control byte) and each non-ASCII byte is put at every offset of strings around the word
/// size, as a key and as a value, and what the parse answers is held to what it must be: the
/// same text, the same error at the same byte.
struct JSONStringScanTests {
    /// Offsets into the string, across the first two eight-byte words and past them.
    static let offsets = Array(0..<20)

    @Test(arguments: offsets)
    func anEscapeAtAnyOffsetIsDecoded(_ at: Int) throws {
        let text = String(repeating: "a", count: at) + "\\\"" + String(repeating: "b", count: 19 - at)
        let value = try JSONParser.parse("{\"k\(text)\": \"\(text)\"}", keys: .dialectFields)
        let decoded = String(repeating: "a", count: at) + "\"" + String(repeating: "b", count: 19 - at)
        #expect(value == .object(JSONObject(members: [JSONMember("k" + decoded, .string(decoded))])))
    }

    @Test(arguments: offsets)
    func aControlByteAtAnyOffsetIsRefusedWhereItIs(_ at: Int) {
        for control in [UInt8(0x00), 0x0A, 0x1F] {
            let inner = [UInt8](repeating: UInt8(ascii: "a"), count: at) + [control] + [UInt8](repeating: UInt8(ascii: "b"), count: 10)
            let asValue = Array("{\"k\": \"".utf8) + inner + Array("\"}".utf8)
            #expect(throws: JSONParseError("control character in string", at: 7 + at)) { try JSONParser.parse(asValue) }
            let asKey = Array("{\"".utf8) + inner + Array("\": 1}".utf8)
            #expect(throws: JSONParseError("control character in string", at: 2 + at)) { try JSONParser.parse(asKey, keys: .dialectFields) }
        }
    }

    @Test(arguments: offsets)
    func nonASCIIAtAnyOffsetIsCheckedAndKept(_ at: Int) throws {
        let head = String(repeating: "a", count: at)
        let good = head + "é€" + "tail_of_it"
        #expect(try JSONParser.parse("[\"\(good)\"]") == .array([.string(good)]))
        #expect(try JSONParser.parse("{\"\(good)\": 1}", keys: .dialectFields).objectValue?.keys == [good])
        let bad = Array("[\"".utf8) + Array(head.utf8) + [0xC3, 0x28] + Array("tail_of_it\"]".utf8)
        #expect(throws: JSONParseError("invalid UTF-8 in string", at: 2)) { try JSONParser.parse(bad) }
    }

    @Test(arguments: offsets)
    func anUnterminatedStringIsRefusedAtItsQuote(_ length: Int) {
        let body = Array("{\"k\": \"".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: length)
        #expect(throws: JSONParseError("unterminated string", at: 6)) { try JSONParser.parse(body) }
    }

    @Test func theDialectsFieldNamesAreHeldAndFoundOnlyByTheirExactBytes() throws {
        let names = InternedKeys.dialectFieldNames
        #expect(names.contains("event_attributes") && names.contains("live_activity") && names.contains("content-state") && names.contains("en"))
        #expect(InternedKeys.dialectFields.count == Set(names).count)
        for name in Set(names) {
            // Each held name, and names sharing its length and first six bytes, parse to their own text.
            let near = [name, name + "x", String(name.dropLast()) + "Z", "x" + name]
            for key in near {
                let parsed = try JSONParser.parse("{\"\(key)\": 1}", keys: .dialectFields)
                #expect(parsed.objectValue?.keys == [key], "\(key)")
            }
        }
    }

    @Test func theSameBodyParsesToTheSameTreeWithAndWithoutTheTable() throws {
        let body = """
        {"event":"start","activity_id":"order_88214","event_attributes":{"orderNumber":"88214"},"headings":{"en":"On the way","fr":"En route"},\
        "included_segments":["seg"],"request":{"notifications":[{"live_activity":{"content-state":{"a":1},"title":"T"}}]},"priority":10}
        """
        #expect(try JSONParser.parse(body, keys: .dialectFields) == JSONParser.parse(body))
        #expect(try JSONWriter.string(JSONParser.parse(body, keys: .dialectFields)) == body)
    }
}
