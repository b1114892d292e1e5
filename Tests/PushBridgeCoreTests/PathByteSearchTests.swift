import Testing
@testable import PushBridgeCore

/// ``PathByteSearch`` finds a byte eight at a time (issue 31, branch `translate8`); it must give
/// what the byte loop it replaced in `InboundRoute` gave (``oracle``, kept here): the first
/// offset of the byte at or after the start, or nil, for every byte value, every offset and
/// length around the word size, and neighbours that differ from the byte in one bit (the high
/// bit among them), by one, or are 0x00 and 0xFF.
struct PathByteSearchTests {
    /// The byte loop `InboundRoute.firstIndex(of:in:)` was, with a start.
    static func oracle(_ byte: UInt8, _ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        for i in start..<max(start, bytes.count) where bytes[i] == byte { return i }
        return nil
    }

    /// Buffers of `length` bytes of one filler, with `byte` at `at` (when in range) and again
    /// three bytes later.
    static func check(_ byte: UInt8, filler: UInt8, length: Int, at: Int) -> Int {
        var bytes = [UInt8](repeating: filler, count: length)
        if at < length { bytes[at] = byte }
        if at + 3 < length { bytes[at + 3] = byte }
        var mismatches = 0
        bytes.withUnsafeBufferPointer { buf in
            for start in 0...length where PathByteSearch.firstIndex(of: byte, in: buf, from: start) != oracle(byte, buf, from: start) {
                mismatches += 1
            }
            // A slice that ends before the buffer does: nothing past its count is found.
            if length > 1 {
                let head = UnsafeBufferPointer(rebasing: buf[0..<(length - 1)])
                if PathByteSearch.firstIndex(of: byte, in: head) != oracle(byte, head, from: 0) { mismatches += 1 }
            }
        }
        return mismatches
    }

    @Test(arguments: [UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "%"), 0x00, 0x7F, 0x80, 0xFF, 0x01])
    func everyOffsetAndNeighbourGivesTheByteLoopsAnswer(_ byte: UInt8) {
        let fillers: [UInt8] = [byte ^ 0x80, byte ^ 0x01, byte ^ 0x40, byte &+ 1, byte &- 1, 0x00, 0xFF, 0x7F, 0x20]
        var mismatches = 0
        for filler in fillers where filler != byte {
            for length in 0...26 {
                for at in 0...length { mismatches += Self.check(byte, filler: filler, length: length, at: at) }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func generatedBuffersGiveTheByteLoopsAnswer() {
        var g = RedactionOverBytesGeneratedTests.Generator(state: 0xD1B5_4A32_D192_ED03)
        func next(_ n: Int) -> Int { g.next(n) }
        var mismatches = 0
        for _ in 0..<20_000 {
            let byte = UInt8(next(256))
            // Few distinct bytes, so the byte and its near neighbours come often.
            let alphabet = [byte, byte ^ 0x80, byte ^ 0x01, UInt8(next(256)), UInt8(next(256))]
            let bytes = (0..<next(40)).map { _ in alphabet[next(alphabet.count)] }
            bytes.withUnsafeBufferPointer { buf in
                let start = next(bytes.count + 1)
                if PathByteSearch.firstIndex(of: byte, in: buf, from: start) != Self.oracle(byte, buf, from: start) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }
}
