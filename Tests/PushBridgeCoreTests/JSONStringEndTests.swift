import Testing
@testable import PushBridgeCore

/// The parser takes a string's end from the word that holds it (issue 31, branch `lazyparse`:
/// the offset of the first `"`, `\` or control byte from the word's bit marks, not a byte loop
/// from the word's start). Held to a byte-by-byte reading of the same strings, written here as
/// the oracle: 6,000 generated strings of plain ASCII (DEL and `/` among it), non-ASCII of two,
/// three and four bytes, escapes (`\"`, `\\`, `\/`, `\n`, `\u00e9`, a surrogate pair), raw
/// control bytes and broken UTF-8, each at every alignment, as an array's value, as a key and
/// as the whole document (its end in the body's last word): the same text, or the same error
/// at the same byte.
struct JSONStringEndTests {
    /// One piece of a string as written in JSON, and the bytes it decodes to.
    struct Piece {
        let written: [UInt8]
        let decoded: [UInt8]
        /// A raw control byte: the parse stops on it.
        var control = false
        /// Broken UTF-8: the string is refused once its end is found.
        var broken = false
    }

    static let plain: [Piece] = ["a", "Z", "0", " ", "/", "}", "~", "\u{7F}", "é", "€", "—", "😀", "x"].map {
        Piece(written: Array($0.utf8), decoded: Array($0.utf8))
    }
    static let escapes: [Piece] = [
        Piece(written: Array(#"\""#.utf8), decoded: [0x22]),
        Piece(written: Array(#"\\"#.utf8), decoded: [0x5C]),
        Piece(written: Array(#"\/"#.utf8), decoded: [0x2F]),
        Piece(written: Array(#"\n"#.utf8), decoded: [0x0A]),
        Piece(written: Array(#"\u00e9"#.utf8), decoded: Array("é".utf8)),
        Piece(written: Array(#"\ud83d\ude00"#.utf8), decoded: Array("😀".utf8)),
    ]
    static let odd: [Piece] = [
        Piece(written: [0x00], decoded: [0x00], control: true),
        Piece(written: [0x1F], decoded: [0x1F], control: true),
        Piece(written: [0x0A], decoded: [0x0A], control: true),
        Piece(written: [0xC3, 0x28], decoded: [0xC3, 0x28], broken: true),
        Piece(written: [0x80], decoded: [0x80], broken: true),
    ]

    /// A string of up to 30 pieces: mostly plain, some escapes, now and then a control byte or broken UTF-8.
    static func pieces(_ g: inout RedactionOverBytesGeneratedTests.Generator) -> [Piece] {
        (0..<g.next(31)).map { _ in
            switch g.next(40) {
            case 0: odd[g.next(odd.count)]
            case 1...5: escapes[g.next(escapes.count)]
            default: plain[g.next(plain.count)]
            }
        }
    }

    /// What a byte-by-byte reading gives for a string whose bytes begin at `start` of the
    /// document: the first raw control byte's error, else broken UTF-8's error at the string's
    /// first byte, else the decoded text.
    static func oracle(_ pieces: [Piece], start: Int) -> Result<String, JSONParseError> {
        var at = start
        for p in pieces {
            if p.control { return .failure(JSONParseError("control character in string", at: at)) }
            at += p.written.count
        }
        if pieces.contains(where: \.broken) { return .failure(JSONParseError("invalid UTF-8 in string", at: start)) }
        return .success(String(decoding: pieces.flatMap(\.decoded), as: UTF8.self))
    }

    /// The parse of a document, as a result.
    static func parse(_ bytes: [UInt8]) -> Result<JSONValue, JSONParseError> {
        do { return .success(try JSONParser.parse(bytes, keys: .dialectFields)) } catch { return .failure(error) }
    }

    @Test func generatedStringsEndWhereTheByteByByteReadingEndsThem() {
        var g = RedactionOverBytesGeneratedTests.Generator(state: 31)
        var checked = 0
        for _ in 0..<2_000 {
            let ps = Self.pieces(&g)
            let written = ps.flatMap(\.written)
            let pad = [UInt8](repeating: UInt8(ascii: " "), count: g.next(9))
            // As an array's value.
            let asValue = [UInt8(ascii: "[")] + pad + [0x22] + written + Array("\"]".utf8)
            let value = Self.oracle(ps, start: 2 + pad.count)
            #expect(Self.parse(asValue) == value.map { JSONValue.array([.string($0)]) }, "value \(asValue)")
            // As a key.
            let asKey = [UInt8(ascii: "{")] + pad + [0x22] + written + Array("\":1}".utf8)
            let key = Self.oracle(ps, start: 2 + pad.count)
            #expect(Self.parse(asKey) == key.map { JSONValue.object(JSONObject(members: [JSONMember($0, .int(1))])) }, "key \(asKey)")
            // As the whole document: the string ends in the body's last bytes.
            let whole = pad + [0x22] + written + [0x22]
            #expect(Self.parse(whole) == Self.oracle(ps, start: 1 + pad.count).map { JSONValue.string($0) }, "document \(whole)")
            checked += 3
        }
        #expect(checked == 6_000)
    }

    @Test func eachEndingByteIsFoundAtEveryOffsetOfEveryWord() {
        // A `"`, a `\` or a control byte after 0 to 23 plain bytes of each kind (ASCII, DEL, non-ASCII lead and
        // continuation bytes, the bytes just above and below the ending ones), so every byte of three words is tried.
        let fillers: [[UInt8]] = [[0x61], [0x7F], Array("é".utf8), [0x21], [0x23], [0x5B], [0x5D], [0x20]]
        for filler in fillers {
            for n in 0..<24 {
                var run: [UInt8] = []
                while run.count < n { run += filler }
                let text = String(decoding: run, as: UTF8.self)
                let start = 7
                let asString = Array("{\"k\": \"".utf8) + run + Array("\"}".utf8)
                #expect(Self.parse(asString) == .success(.object(JSONObject(members: [JSONMember("k", .string(text))]))), "\(filler) \(n)")
                let escaped = Array("{\"k\": \"".utf8) + run + Array(#"\tz"}"#.utf8)
                #expect(Self.parse(escaped) == .success(.object(JSONObject(members: [JSONMember("k", .string(text + "\tz"))]))), "\(filler) \(n)")
                for control: UInt8 in [0x00, 0x01, 0x09, 0x1F] {
                    let bad = Array("{\"k\": \"".utf8) + run + [control] + Array("ok\"}".utf8)
                    #expect(Self.parse(bad) == .failure(JSONParseError("control character in string", at: start + run.count)), "\(filler) \(n) \(control)")
                }
            }
        }
    }
}
