import Testing
@testable import PushBridgeCore

/// ``KeyFingerprint`` reads a key's bytes a word at a time (issue 31, branch `translate`): it
/// must give exactly the fingerprint the byte-by-byte reading gave, for every length across
/// two words and with a non-ASCII byte at every offset, or a lookup would skip a key it must
/// compare (or compare keys it could skip).
struct KeyFingerprintWordTests {
    /// The fingerprint as the byte loop computed it before (the oracle).
    static func byteByByte(_ bytes: [UInt8]) -> UInt64 {
        var high: UInt8 = 0
        for b in bytes { high |= b }
        guard high < 0x80 else { return KeyFingerprint.unknown.bits }
        var packed = UInt64(min(bytes.count, 0xFFFF)) << 48
        for i in 0..<min(bytes.count, 6) { packed |= UInt64(bytes[i]) << (8 * UInt64(i)) }
        return packed
    }

    /// ASCII keys of every length from 0 to 24, and each with one byte ≥ 0x80 at every offset.
    static let keys: [[UInt8]] = {
        var out: [[UInt8]] = []
        for length in 0...24 {
            let ascii = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            out.append(ascii)
            for at in 0..<length {
                var high = ascii
                high[at] = 0xC3
                out.append(high)
            }
        }
        return out
    }()

    @Test func theWordReadingGivesTheByteReadingsFingerprint() {
        #expect(Self.keys.count > 300)
        for key in Self.keys {
            let word = key.withUnsafeBufferPointer { KeyFingerprint($0).bits }
            #expect(word == Self.byteByByte(key), "\(key)")
            let known = key.allSatisfy { $0 < 0x80 }
            if known {
                let ascii = key.withUnsafeBufferPointer { KeyFingerprint(ascii: $0).bits }
                #expect(ascii == word, "\(key)")
                #expect(KeyFingerprint(String(decoding: key, as: UTF8.self)).bits == word, "\(key)")
            }
        }
    }
}
