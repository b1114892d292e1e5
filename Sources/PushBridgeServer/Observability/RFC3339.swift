import PushBridgeCore
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// RFC 3339 UTC timestamps with milliseconds (`2026-11-29T17:21:37.042Z`), computed without
/// `gmtime` or Foundation so that formatting is pure and cheap.
public enum RFC3339 {
    /// Milliseconds since the Unix epoch, now (`CLOCK_REALTIME`).
    public static func nowMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// The timestamp for `milliseconds` since the Unix epoch (before 1970 works too).
    public static func format(milliseconds: Int64) -> String {
        let (seconds, millis) = floorDivide(milliseconds, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        if (0...9999).contains(year) {
            // The usual case, written straight into the string's 24 bytes.
            return String(unsafeUninitializedCapacity: 24) { buffer in
                var at = 0
                func put(_ value: Int64, _ width: Int, then separator: UInt8) {
                    var v = value
                    for k in stride(from: width - 1, through: 0, by: -1) {
                        buffer[at + k] = UInt8(ascii: "0") + UInt8(v % 10)
                        v /= 10
                    }
                    buffer[at + width] = separator
                    at += width + 1
                }
                put(year, 4, then: UInt8(ascii: "-"))
                put(month, 2, then: UInt8(ascii: "-"))
                put(day, 2, then: UInt8(ascii: "T"))
                put(secondOfDay / 3600, 2, then: UInt8(ascii: ":"))
                put(secondOfDay / 60 % 60, 2, then: UInt8(ascii: ":"))
                put(secondOfDay % 60, 2, then: UInt8(ascii: "."))
                put(millis, 3, then: UInt8(ascii: "Z"))
                return at
            }
        }
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
            + "." + pad(millis, 3) + "Z"
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let c = CivilTime.civil(fromDays: z0)
        return (c.year, c.month, c.day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
