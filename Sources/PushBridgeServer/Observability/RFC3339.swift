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

    /// How many bytes ``write(milliseconds:into:)`` writes: a timestamp of a four-digit year.
    public static let usualLength = 24

    /// The timestamp for `milliseconds` since the Unix epoch (before 1970 works too).
    public static func format(milliseconds: Int64) -> String {
        let time = Parts(milliseconds)
        if time.hasFourDigitYear {
            // The usual case, written straight into the string's 24 bytes.
            return String(unsafeUninitializedCapacity: usualLength) { buffer in
                time.write(into: buffer)
                return usualLength
            }
        }
        return pad(time.year, 4) + "-" + pad(time.month, 2) + "-" + pad(time.day, 2) + "T"
            + pad(time.secondOfDay / 3600, 2) + ":" + pad(time.secondOfDay / 60 % 60, 2) + ":" + pad(time.secondOfDay % 60, 2)
            + "." + pad(time.millis, 3) + "Z"
    }

    /// Writes the timestamp for `milliseconds` into the first ``usualLength`` bytes of `out`
    /// and returns true when its year has four digits (0 through 9999: the bytes ``format(milliseconds:)``
    /// gives); returns false and writes nothing for any other year. For a caller writing the
    /// timestamp into bytes of its own, with no string of its own (issue 31).
    public static func write(milliseconds: Int64, into out: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        precondition(out.count >= usualLength, "room for a timestamp")
        let time = Parts(milliseconds)
        guard time.hasFourDigitYear else { return false }
        time.write(into: out)
        return true
    }

    /// A moment's calendar fields, UTC.
    private struct Parts {
        let year, month, day, secondOfDay, millis: Int64

        init(_ milliseconds: Int64) {
            let (seconds, millis) = floorDivide(milliseconds, 1000)
            let (days, secondOfDay) = floorDivide(seconds, 86_400)
            (year, month, day) = civil(fromDays: days)
            self.secondOfDay = secondOfDay
            self.millis = millis
        }

        var hasFourDigitYear: Bool { (0...9999).contains(year) }

        /// The 24 bytes of a four-digit year's timestamp, into `buffer`'s first 24.
        func write(into buffer: UnsafeMutableBufferPointer<UInt8>) {
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
        }
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
