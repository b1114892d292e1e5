import Testing
@testable import PushBridgeCore

/// A sentence with a non-ASCII character is made as its ASCII prefix plus the checked rest
/// (issue 31, branch `translate4`): the text must be the one `String(decoding:)` of the whole
/// bytes makes (the code it replaced, kept here as the oracle), byte for byte and character for
/// character, wherever the first non-ASCII byte falls, whatever follows it, on both sides of
/// the split threshold and of the 512-byte inline room.
struct MessageTextSplitTests {
    /// What may follow the ASCII prefix: 2-, 3- and 4-byte characters, a combining mark that
    /// joins the prefix's last character, emoji sequences, and ASCII with quotes, backslashes,
    /// control bytes and DEL.
    static let tails = ["—", "é", "e\u{301}", "\u{301}", "\u{00e9}x", "😀", "👨‍👩‍👧", "\u{212A}", "— add \"seg\\1\": \"<id>\"\u{7F}\t\u{1}",
                        "\u{301}\u{301}ab", "ü" + String(repeating: "z", count: 40), "\r\n", "x\u{10FFFF}"]
    /// The ASCII before the first non-ASCII byte: every ending byte kind, quotes, backslashes, control bytes, DEL.
    static let fillers: [UInt8] = [UInt8(ascii: "a"), UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x01, 0x0A, 0x7F, UInt8(ascii: " "), UInt8(ascii: "e")]

    /// The old path: one `String` of the whole bytes.
    static func oracle(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    static func expectSame(_ built: String, _ bytes: [UInt8], _ label: @autoclosure () -> String) {
        let old = oracle(bytes)
        #expect(Array(built.utf8) == bytes, "\(label())")
        #expect(built == old, "\(label())")
        #expect(built.count == old.count, "\(label())")
        #expect(Array(built.unicodeScalars) == Array(old.unicodeScalars), "\(label())")
    }

    @Test func everyPrefixLengthAndTailIsTheWholeTextsString() {
        for length in 0...600 {
            let filler = Self.fillers[length % Self.fillers.count]
            var head = [UInt8](repeating: UInt8(ascii: "s"), count: length)
            if length > 0 { head[length - 1] = filler }
            if length > 2 { head[length / 2] = Self.fillers[(length / 2) % Self.fillers.count] }
            let headText = String(decoding: head, as: UTF8.self)
            for tail in Self.tails {
                let built = MessageText("\(headText)\(tail)").text
                Self.expectSame(built, head + Array(tail.utf8), "prefix \(length), tail \(tail.unicodeScalars.map { $0.value })")
            }
        }
    }

    /// The sentence pieces a finding really has: integers, quoted lists, and more non-ASCII
    /// after the first.
    @Test func sentencesOfSeveralPiecesAreTheWholeTextsString() {
        for length in stride(from: 0, through: 540, by: 7) {
            let name = String(repeating: "n", count: length)
            for tail in Self.tails {
                let built = MessageText("\(name) was \(length) — \(quoted: [tail, name], separator: ", ") é \(Int64.min)").text
                let expected = "\(name) was \(length) — \(["\"\(tail)\"", "\"\(name)\""].joined(separator: ", ")) é \(Int64.min)"
                Self.expectSame(built, Array(expected.utf8), "length \(length), tail \(tail.unicodeScalars.map { $0.value })")
            }
        }
    }

    /// The word-at-a-time search finds the byte a byte loop finds: every length 0–40 with a
    /// byte ≥ 0x80 of each kind at every offset, and none.
    @Test func theFirstNonASCIIByteIsTheByteLoops() {
        for n in 0...40 {
            for at in -1..<n {
                for high: UInt8 in [0x80, 0xC3, 0xE2, 0xFF] {
                    var bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 37) & 0x7F }
                    if at >= 0 { bytes[at] = high }
                    if at >= 0, at + 3 < n { bytes[at + 3] = 0x90 }
                    let expected = bytes.firstIndex { $0 >= 0x80 } ?? n
                    let found = bytes.withUnsafeBytes { MessageText.firstNonASCII($0) }
                    #expect(found == expected, "length \(n), at \(at), byte \(high)")
                }
            }
        }
    }
}
