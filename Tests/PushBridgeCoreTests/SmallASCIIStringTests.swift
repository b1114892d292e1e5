import Testing
@testable import PushBridgeCore

/// The parser makes strings of at most 15 ASCII bytes as the two words of a small `String`
/// (issue 31, branch `spans`: `SmallASCIIString`). Held to `String(decoding:)`, the way they were
/// made before, kept here as the oracle: the same words bit for bit (flags and count included),
/// the same text, hash, bytes and appends, for every length 0–15, every ASCII byte (controls and
/// DEL too), at every alignment, with the string's end at the buffer's end and before it; and
/// whole parses of keys, values and number literals of 0–24 bytes, at the body's end and inside it.
struct SmallASCIIStringTests {
    typealias Generator = RedactionOverBytesGeneratedTests.Generator

    /// The raw words of a `String` value.
    static func words(_ s: String) -> (UInt64, UInt64) { unsafeBitCast(s, to: (UInt64, UInt64).self) }

    /// True when a parsed string has the words `String(decoding:)` gives its text, for a text
    /// short enough to be a small string (a longer one is on the heap: its words hold an address).
    static func sameWords(_ parsed: String, _ text: String) -> Bool {
        text.utf8.count > SmallASCIIString.capacity || words(parsed) == words(String(decoding: Array(text.utf8), as: UTF8.self))
    }

    @Test func theLayoutCheckHoldsOnThisPlatform() {
        // Otherwise the parser falls back to `String(decoding:)` and the tests below do not
        // reach the words it makes.
        #expect(SmallASCIIString.layoutHolds)
    }

    @Test func wordsEqualStringDecodingsForEveryLengthByteAndAlignment() {
        var g = Generator(state: 15)
        var checked = 0
        for _ in 0..<400 {
            for n in 0...SmallASCIIString.capacity {
                let text = (0..<n).map { _ in UInt8(g.next(128)) }
                for offset in 0..<8 {
                    for tail in [0, 1, 7, 8, 16] {
                        let buffer = [UInt8](repeating: 0xFF, count: offset) + text + [UInt8](repeating: 0xFF, count: tail)
                        buffer.withUnsafeBufferPointer { all in
                            let base = all.baseAddress! + offset
                            let oracle = String(decoding: UnsafeBufferPointer(start: base, count: n), as: UTF8.self)
                            let made = SmallASCIIString.make(base, count: n, readable: n + tail)
                            #expect(Self.words(made) == Self.words(oracle), "\(text) offset \(offset) tail \(tail)")
                            #expect(made == oracle)
                            #expect(made.hashValue == oracle.hashValue)
                            #expect(made.utf8.elementsEqual(text))
                            #expect(made.unicodeScalars.count == n)
                            #expect(made + "é—" == oracle + "é—")
                            var grown = made
                            grown.append(contentsOf: String(repeating: "x", count: 20))
                            #expect(grown == oracle + String(repeating: "x", count: 20))
                        }
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 400 * 16 * 8 * 5)
    }

    /// A key, a string value or a number literal of `n` bytes: its JSON text and its text.
    static func token(_ g: inout Generator, _ n: Int, number: Bool) -> (json: [UInt8], text: String) {
        if number {
            let digits = (0..<max(n, 1)).map { i in UInt8(ascii: "0") + UInt8(i == 0 ? 1 + g.next(9) : g.next(10)) }
            return (digits, String(decoding: digits, as: UTF8.self))
        }
        // Printable ASCII without `"` and `\` (both end a plain run), DEL included.
        let pool = Array(" !#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[]^_`abcxyz{|}~\u{7F}".utf8)
        let bytes = (0..<n).map { _ in pool[g.next(pool.count)] }
        return ([0x22] + bytes + [0x22], String(decoding: bytes, as: UTF8.self))
    }

    @Test func parsedKeysValuesAndNumbersEqualTheirDecodedStrings() throws {
        var g = Generator(state: 16)
        for _ in 0..<300 {
            for n in 0...24 {
                let pad = [UInt8](repeating: 0x20, count: g.next(8))
                let key = Self.token(&g, n, number: false)
                let value = Self.token(&g, n, number: false)
                let number = Self.token(&g, n, number: true)
                // Inside a body: `{"key": "value", "k2": 123}`.
                let body = Array("{".utf8) + pad + key.json + Array(":".utf8) + value.json + Array(",\"k2\":".utf8) + number.json + Array("}".utf8)
                let parsed = try JSONParser.parse(body)
                let object = try #require(parsed.objectValue)
                let members = object.members
                try #require(members.count == 2 || key.text == "k2")
                #expect(members[0].key == key.text)
                #expect(Self.sameWords(members[0].key, key.text))
                // The key's fingerprint, made from its words when short, as from its bytes.
                let keyBytes = Array(key.text.utf8)
                #expect(members[0].fingerprint == keyBytes.withUnsafeBufferPointer { KeyFingerprint(ascii: $0) }, "\(keyBytes)")
                if key.text != "k2" {
                    let v = try #require(members[0].value.stringValue)
                    #expect(v == value.text)
                    #expect(Self.sameWords(v, value.text))
                    let literal = try #require(members[1].value.numberValue).literal
                    #expect(literal == number.text)
                    #expect(Self.sameWords(literal, number.text))
                }
                // At the body's end: the whole document is the string, or the number.
                let alone = try #require(try JSONParser.parse(pad + value.json).stringValue)
                #expect(alone == value.text && Self.sameWords(alone, value.text))
                let digits = try #require(try JSONParser.parse(pad + number.json).numberValue).literal
                #expect(digits == number.text && Self.sameWords(digits, number.text))
            }
        }
    }
    @Test func bytesNotKnownToBeASCIIAreSmallStringsOnlyWhenTheyAre() {
        var g = Generator(state: 17)
        let nonASCII = Array("é—😀".utf8)
        for _ in 0..<300 {
            for n in 0...20 {
                var bytes = (0..<n).map { _ in UInt8(g.next(128)) }
                if n > 0, g.next(3) == 0 { bytes[g.next(n)] = nonASCII[g.next(nonASCII.count)] }
                bytes.withUnsafeBufferPointer { p in
                    let oracle = String(decoding: p, as: UTF8.self)
                    let made = SmallASCIIString.string(ifASCII: p)
                    if n <= SmallASCIIString.capacity, bytes.allSatisfy({ $0 < 0x80 }) {
                        let words = made.map(Self.words)
                        #expect(words?.0 == Self.words(oracle).0 && words?.1 == Self.words(oracle).1, "\(bytes)")
                    } else {
                        #expect(made == nil, "\(bytes)")
                    }
                }
            }
        }
    }

    @Test func aRoutesPathSegmentsAreTheirText() throws {
        var g = Generator(state: 18)
        let pool = Array("abcxyzABCXYZ0123456789_-.~é".unicodeScalars)
        for _ in 0..<200 {
            for n in 1...20 {
                let app = String(String.UnicodeScalarView((0..<n).map { _ in pool[g.next(pool.count)] }))
                let id = String(String.UnicodeScalarView((0..<(21 - n)).map { _ in pool[g.next(pool.count)] }))
                let update = try #require(InboundRoute.match(path: "/apps/\(app)/live_activities/\(id)/notifications"))
                #expect(update.appId == app && update.activityId == id)
                let (appId, activityId) = (try #require(update.appId), try #require(update.activityId))
                #expect(Self.sameWords(appId, app) && Self.sameWords(activityId, id))
                let start = try #require(InboundRoute.match(path: "/api/v1/apps/\(app)/activities/activity/\(id)"))
                #expect(start.appId == app && start.activityType == id)
            }
        }
    }
}
