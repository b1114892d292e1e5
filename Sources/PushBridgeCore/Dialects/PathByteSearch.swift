/// One byte found in a request path's bytes eight at a time (issue 31, branch `translate8`):
/// `InboundRoute.match` looked for `?`, each `/` and `%` a byte at a time, about 55 bytes per
/// pass on a OneSignal start's path.
enum PathByteSearch {
    /// `0x01` in every byte of a word.
    static let ones: UInt64 = 0x0101_0101_0101_0101
    /// `0x7F` in every byte of a word.
    static let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// The high bit of each byte of `w` that equals `byte`, exactly: `(x & 0x7F) + 0x7F` sets
    /// a byte's high bit when its low seven bits are not all zero and never carries out of the
    /// byte, so no byte's answer depends on another's.
    @inline(__always)
    static func matches(_ w: UInt64, _ byte: UInt8) -> UInt64 {
        let x = w ^ (ones &* UInt64(byte))
        return ~(((x & lows) &+ lows) | x) & ~lows
    }

    /// The offset of the first `byte` at or after `start` in `bytes`, or nil.
    static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int? {
        var i = start
        if let base = bytes.baseAddress {
            while i + 8 <= bytes.count {
                let found = matches(UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)), byte)
                if found != 0 { return i + found.trailingZeroBitCount >> 3 }
                i += 8
            }
        }
        while i < bytes.count {
            if bytes[i] == byte { return i }
            i += 1
        }
        return nil
    }
}
