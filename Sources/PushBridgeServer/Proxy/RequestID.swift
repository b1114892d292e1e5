/// Request ids that sort by time: `req_` + 12 hex digits of Unix milliseconds + 8 random hex.
public enum RequestID {
    /// A new id for the time `nowMs` (Unix milliseconds, from the caller's clock).
    public static func make(nowMs: Int64) -> String {
        var out: [UInt8] = Array("req_".utf8)
        out.reserveCapacity(24)
        appendHex(UInt64(max(0, nowMs)), minimumDigits: 12, to: &out)
        appendHex(UInt64(UInt32.random(in: .min ... .max)), minimumDigits: 8, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Lower-case hex digits of `value`, zero-padded on the left to `minimumDigits`.
    static func appendHex(_ value: UInt64, minimumDigits: Int, to out: inout [UInt8]) {
        let digits = max(minimumDigits, (64 - value.leadingZeroBitCount + 3) / 4)
        for i in stride(from: digits - 1, through: 0, by: -1) {
            let nibble = UInt8(truncatingIfNeeded: i < 16 ? value >> UInt64(i * 4) : 0) & 0x0F
            out.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
        }
    }
}
