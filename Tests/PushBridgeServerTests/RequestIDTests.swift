@testable import PushBridgeServer
import Testing

/// Request ids: `req_`, 12 hex digits of Unix milliseconds, 8 random hex digits.
struct RequestIDTests {
    @Test func idsCarryTheirMillisecondsAndSortByTime() {
        let id = RequestID.make(nowMs: 1_795_000_000_123)
        #expect(id.utf8.count == 24 && id.hasPrefix("req_"))
        #expect(id.dropFirst(4).prefix(12) == "01a1ee565e7b", "1795000000123 in hex, zero-padded to 12")
        #expect(id.dropFirst(16).allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(RequestID.make(nowMs: 0).hasPrefix("req_000000000000"))
        #expect(RequestID.make(nowMs: -5).hasPrefix("req_000000000000"), "negative clocks read as 0")
        let earlier = RequestID.make(nowMs: 1_795_000_000_123), later = RequestID.make(nowMs: 1_795_000_000_124)
        #expect(earlier.prefix(16) < later.prefix(16))
        #expect(Set((0..<50).map { _ in RequestID.make(nowMs: 7) }).count > 45, "the random part differs")
    }

    @Test func hexMatchesStringRadixWithPadding() {
        for value: UInt64 in [0, 1, 0xF, 0x10, 0xABCDEF, UInt64(UInt32.max), 1 << 48, UInt64.max] {
            for width in [1, 8, 12] {
                var out: [UInt8] = []
                RequestID.appendHex(value, minimumDigits: width, to: &out)
                let plain = String(value, radix: 16)
                #expect(String(decoding: out, as: UTF8.self) == String(repeating: "0", count: max(0, width - plain.count)) + plain)
            }
        }
    }
}
