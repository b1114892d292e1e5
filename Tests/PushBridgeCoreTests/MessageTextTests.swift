import Testing
@testable import PushBridgeCore

/// ``MessageText`` builds findings' sentences from bytes (issue 31 item 1): each must be the
/// text `String` interpolation gives for the same pieces, byte for byte, whatever the pieces
/// hold (non-ASCII, combining marks that join the piece before, quotes, empty text, integers).
struct MessageTextTests {
    static let values = ["", "seg_01hq8n4t2v", "é", "e\u{301}", "\u{301}", "👨‍👩‍👧", "\"q\"", "K\u{212A}", "a\r\nb", String(repeating: "x", count: 300)]

    @Test(arguments: values)
    func aSentenceIsTheInterpolationsText(_ value: String) {
        let n = value.utf8.count - 7
        let built = MessageText("\(value) — \"\(value)\" holds \(n) of \(Int64(2_000))\u{301}: \(value)").text
        let interpolated = "\(value) — \"\(value)\" holds \(n) of \(Int64(2_000))\u{301}: \(value)"
        #expect(Array(built.utf8) == Array(interpolated.utf8))
        #expect(built == interpolated)
    }

    @Test func aQuotedListIsTheJoinedQuotedNames() {
        for count in 0...3 {
            let list = Array(Self.values.prefix(count + 2).suffix(count))
            let built = MessageText("segments \(quoted: list, separator: ", ") hold").text
            let joined = "segments \(list.map { "\"\($0)\"" }.joined(separator: ", ")) hold"
            #expect(Array(built.utf8) == Array(joined.utf8), "\(list)")
        }
    }

    /// Integers are written as digits into the bytes (no `String` per integer): the same text as
    /// interpolation for zero, signs, both ends of 64 bits and past them.
    @Test func anIntegerIsWrittenAsInterpolationWritesIt() {
        let signed: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 2_000, -2_000, 1_000_000_007, .max, .min, .max - 1, .min + 1]
        for n in signed {
            #expect(MessageText("n=\(n);").text == "n=\(n);")
            #expect(MessageText("\(Int(n))").text == "\(Int(n))")
        }
        let unsigned: [UInt64] = [0, 7, UInt64(Int64.max), UInt64(Int64.max) + 1, .max]
        for n in unsigned { #expect(MessageText("[\(n)]").text == "[\(n)]") }
        #expect(MessageText("\(Int8.min) \(UInt8.max) \(Int32.min)").text == "-128 255 -2147483648")
    }

    /// A sentence is kept in the value's own 512 bytes until it outgrows them: a piece that
    /// ends just before, at, or just past the edge, and texts far past it, are the same text.
    @Test func aSentenceAcrossTheInlineRoomIsTheInterpolationsText() {
        for length in 500...520 {
            let head = String(repeating: "h", count: length - 10)
            let built = MessageText("\(head)0123456789é\(length)!\(quoted: ["a", "b"], separator: ",")").text
            let interpolated = "\(head)0123456789é\(length)!\"a\",\"b\""
            #expect(Array(built.utf8) == Array(interpolated.utf8), "\(length)")
        }
        let long = String(repeating: "ü", count: 700)
        #expect(MessageText("[\(long)|\(long)]").text == "[\(long)|\(long)]")
    }
}
