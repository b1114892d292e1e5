/// Request ids that sort by time: `req_` + 12 hex digits of Unix milliseconds + 8 random hex
/// (32 bits of the system's randomness, from ``ThreadRandomBytes``).
public enum RequestID {
    /// A new id for the time `nowMs` (Unix milliseconds, from the caller's clock).
    public static func make(nowMs: Int64) -> String {
        // Written straight into the string's storage (at most 4 + 16 + 8 bytes): an array
        // first, then the string, was one allocation more on every request.
        // Four bytes of the system's randomness from this thread's buffer: as uniform as
        // `UInt32.random` was, without a `getrandom` per id (one per 1024).
        let random = UInt64(ThreadRandomBytes.current.nextUInt32())
        return String(unsafeUninitializedCapacity: 28) { out in
            var n = 0
            for byte in "req_".utf8 { out[n] = byte; n += 1 }
            writeHex(UInt64(max(0, nowMs)), minimumDigits: 12, to: out, at: &n)
            writeHex(random, minimumDigits: 8, to: out, at: &n)
            return n
        }
    }

    /// ``appendHex(_:minimumDigits:to:)`` into `out` from `n` on, `n` moved past the digits.
    static func writeHex(_ value: UInt64, minimumDigits: Int, to out: UnsafeMutableBufferPointer<UInt8>, at n: inout Int) {
        let digits = max(minimumDigits, (64 - value.leadingZeroBitCount + 3) / 4)
        for i in stride(from: digits - 1, through: 0, by: -1) {
            out[n] = hexDigit(value, i)
            n += 1
        }
    }

    /// The `i`-th hex digit of `value` from the right (0 past the 16th), lower-case.
    private static func hexDigit(_ value: UInt64, _ i: Int) -> UInt8 {
        let nibble = UInt8(truncatingIfNeeded: i < 16 ? value >> UInt64(i * 4) : 0) & 0x0F
        return nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Lower-case hex digits of `value`, zero-padded on the left to `minimumDigits`.
    static func appendHex(_ value: UInt64, minimumDigits: Int, to out: inout [UInt8]) {
        let digits = max(minimumDigits, (64 - value.leadingZeroBitCount + 3) / 4)
        for i in stride(from: digits - 1, through: 0, by: -1) { out.append(hexDigit(value, i)) }
    }
}
