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
}
