@testable import PushBridgeServer
import Testing

/// How a raw header line from curl becomes a name and a value (parsed on bytes).
struct UpstreamHeaderLineTests {
    private func parse(_ line: String) -> (name: String, value: String)? {
        Array(line.utf8).withUnsafeBytes { CurlEasyTransfer.parseHeaderLine($0) }
    }

    @Test func namesAreLowerCasedAndValuesTrimmedOfSpacesTabsAndLineEnds() {
        let h = parse("Retry-After: \t 17 \t\r\n")
        #expect(h?.name == "retry-after" && h?.value == "17")
        #expect(parse("X-Empty:\r\n").map { [$0.name, $0.value] } == ["x-empty", ""])
        #expect(parse("Content-Type:application/json; charset=UTF-8\n")?.value == "application/json; charset=UTF-8", "inner spaces and case kept")
        #expect(parse("Location: http://h/a:b\r\n")?.value == "http://h/a:b", "only the first colon splits")
    }

    @Test func statusLinesBlankLinesAndLinesWithoutAColonAreNotHeaders() {
        #expect(parse("HTTP/1.1 200 OK\r\n") == nil)
        #expect(parse("HTTP/2 429\r\n") == nil)
        #expect(parse("\r\n") == nil)
        #expect(parse("garbage line\r\n") == nil)
    }

    @Test func nonASCIIIsDecodedAndLowerCasedAsText() {
        let h = parse("X-Ünïcode: café\r\n")
        #expect(h?.name == "x-ünïcode" && h?.value == "café")
        let bad = [UInt8]("X-Bad: ".utf8) + [0xFF, 0x41] + [0x0D, 0x0A]
        #expect(bad.withUnsafeBytes { CurlEasyTransfer.parseHeaderLine($0) }?.value == "\u{FFFD}A", "invalid UTF-8 is repaired, not dropped")
    }
}
