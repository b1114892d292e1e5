/// The one place an OpenPush request path is built: every value that goes into a path segment
/// (app id, activity type, activity id) is checked by ``problem(segment:)`` where it enters
/// and percent-encoded by ``segment(_:)`` here, so the path OpenPush receives is exactly the
/// documented route. The transport is never trusted to keep a path as it was built (libcurl
/// removes `.` and `..` segments unless told not to).
public enum OpenPushPath {
    /// `POST /apps/{app_id}/activities/activity/{activity_type}`, after `base` (an OpenPush
    /// base URL, or nothing for the path alone).
    public static func start(appId: String, activityType: String, on base: String = "") -> String {
        joined(base, "/apps/", segment(appId), "/activities/activity/", segment(activityType), "")
    }

    /// `POST /apps/{app_id}/live_activities/{activity_id}/notifications`, after `base`.
    public static func update(appId: String, activityId: String, on base: String = "") -> String {
        joined(base, "/apps/", segment(appId), "/live_activities/", segment(activityId), "/notifications")
    }

    /// `base`, `a`, `x`, `b`, `y` and `c` written into one string of their length: one
    /// allocation (at most), where an interpolation grows its buffer as it goes and `+` makes another.
    private static func joined(_ base: String, _ a: StaticString, _ x: String, _ b: StaticString, _ y: String, _ c: StaticString) -> String {
        var (base, x, y) = (base, x, y)
        let count = base.utf8.count + a.utf8CodeUnitCount + x.utf8.count + b.utf8CodeUnitCount + y.utf8.count + c.utf8CodeUnitCount
        return String(unsafeUninitializedCapacity: count) { out in
            var n = 0
            func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                guard let from = bytes.baseAddress, let to = out.baseAddress else { return }
                (to + n).update(from: from, count: bytes.count)
                n += bytes.count
            }
            base.withUTF8(put)
            a.withUTF8Buffer(put)
            x.withUTF8(put)
            b.withUTF8Buffer(put)
            y.withUTF8(put)
            c.withUTF8Buffer(put)
            return n
        }
    }

    /// Why `value` cannot be one path segment of an OpenPush route, or nil when it can: blank,
    /// a dot segment (`.` or `..`, which re-aims the URL at another route), a `/` (OpenPush's
    /// documented rule for activity ids) or a control character (which no id OpenPush stores
    /// holds). The text is a rule for the caller's error, after the field name.
    /// The dot segments are found by their bytes (only `.` itself is canonically equal to `.`),
    /// and `/` and control characters in one scan (issue 31: two `String` comparisons and two
    /// scans were about 850 instructions a segment).
    public static func problem(segment value: String) -> String? {
        if OpenPushRules.isBlank(value) { return "is required and must be non-blank" }
        let utf8 = value.utf8
        if utf8.count <= 2, utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) {
            return "must not be \".\" or \"..\" (it goes into the OpenPush URL path, where it would name another route)"
        }
        let found = utf8.withContiguousStorageIfAvailable(slashOrControl)
            ?? (slash: value.containsUTF8(UInt8(ascii: "/")), control: hasControlCharacter(value))
        if found.slash { return "must not contain / (it goes into the OpenPush URL path)" }
        if found.control { return "must not contain control characters (it goes into the OpenPush URL path)" }
        return nil
    }

    /// Whether the bytes hold a `/`, and whether they hold a control character as
    /// ``hasControlCharacter(_:)`` finds one, in one pass. Words of eight bytes that
    /// ``mayHoldSlashOrControl(_:)`` clears are passed whole (issue 31, branch `translate8`: the
    /// byte loop was about 130 instructions for each of a OneSignal start's two ids); the byte
    /// loop decides from the first word it does not clear.
    private static func slashOrControl(_ bytes: UnsafeBufferPointer<UInt8>) -> (slash: Bool, control: Bool) {
        var slash = false
        var control = false
        var from = 0
        if let base = bytes.baseAddress {
            while from + 8 <= bytes.count,
                  !mayHoldSlashOrControl(UInt64(littleEndian: UnsafeRawPointer(base + from).loadUnaligned(as: UInt64.self))) {
                from += 8
            }
        }
        for i in from..<bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "/") { slash = true }
            else if b < 0x20 || b == 0x7F { control = true }
            else if b == 0xC2, i + 1 < bytes.count, (0x80...0x9F).contains(bytes[i + 1]) { control = true }
        }
        return (slash, control)
    }

    /// False only when none of the eight bytes of `w` is a `/`, a byte below 0x20, 0x7F or a
    /// byte of 0x80 or more (the lead of a C1 control character is one): each test sets a
    /// byte's high bit from that byte alone (`(b & 0x7F) + k` never carries out of it).
    @inline(__always)
    static func mayHoldSlashOrControl(_ w: UInt64) -> Bool {
        let lows = PathByteSearch.lows, ones = PathByteSearch.ones, highs = ~lows
        let delOrHigh = ((w & lows) &+ ones) | w
        let printable = ((w & lows) &+ ones &* 0x60) | w
        return (delOrHigh | ~printable | PathByteSearch.matches(w, UInt8(ascii: "/"))) & highs != 0
    }

    /// Whether `value` holds a C0 or C1 control character or DEL (U+0000–U+001F, U+007F,
    /// U+0080–U+009F), by one scan of its UTF-8: C0 and DEL are those bytes themselves, a C1
    /// character is the lead byte 0xC2 followed by 0x80–0x9F.
    static func hasControlCharacter(_ value: String) -> Bool {
        let scanned = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for (i, b) in bytes.enumerated() {
                if b < 0x20 || b == 0x7F { return true }
                if b == 0xC2, i + 1 < bytes.count, (0x80...0x9F).contains(bytes[i + 1]) { return true }
            }
            return false
        }
        return scanned ?? value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) })
    }

    /// `value` percent-encoded as one path segment: everything but RFC 3986 unreserved
    /// characters is escaped, and a segment of only dots has its dots escaped too, so that even
    /// a value ``problem(segment:)`` would refuse never leaves as a dot segment.
    public static func segment(_ value: String) -> String {
        let encoded = PathEncoding.encodeSegment(value)
        guard !encoded.isEmpty, encoded.utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) else { return encoded }
        return String(repeating: "%2E", count: encoded.utf8.count)
    }
}
