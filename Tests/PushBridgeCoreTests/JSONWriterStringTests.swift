import Testing
@testable import PushBridgeCore

/// ``JSONWriter/writeString(_:into:)`` skips words with nothing to escape and copies a plain
/// string's bytes as they are (issue 31, branch `translate`): it must write exactly the bytes
/// the byte-by-byte writer wrote, with a quote, a backslash or a control byte at every offset
/// across two words, non-ASCII around them, and empty, small and long strings.
struct JSONWriterStringTests {
    /// The texts: each escape-worthy character at every offset of texts of 0 to 20 bytes, in
    /// ASCII and after a two-byte character, and a few long ones.
    static let texts: [String] = {
        var out = ["", "é", String(repeating: "x", count: 300), String(repeating: "ü\u{301}", count: 40) + "\"", "a\u{7F}b"]
        for special in ["\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "/"] {
            for length in 0...20 {
                for at in 0...length {
                    let head = String(repeating: "a", count: at), tail = String(repeating: "b", count: length - at)
                    out.append(head + special + tail)
                    out.append("é" + head + special + tail)
                }
            }
        }
        return out
    }()

    @Test func everyStringIsWrittenAsTheByteWriterWroteIt() throws {
        #expect(Self.texts.count > 3_000)
        for text in Self.texts {
            var fast: [UInt8] = [1]
            JSONWriter.writeString(text, into: &fast)
            var slow: [UInt8] = [1]
            JSONWriter.writeEscaped(text, into: &slow)
            #expect(fast == slow, "\(text.debugDescription)")
            // And the parser reads it back as the same text.
            #expect(try JSONParser.parse(Array(fast.dropFirst())) == .string(text))
        }
    }
}
