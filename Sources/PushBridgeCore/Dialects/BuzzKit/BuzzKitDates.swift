/// Helpers for BuzzKit's ISO 8601 timestamps (the parsing itself is
/// `TimestampConversion.unixSeconds(iso:)`).
enum BuzzKitDates {
    /// True when the date-time has a fraction of a second with a non-zero digit
    /// (`…:00.500Z`), which conversion to whole seconds truncates.
    static func hasNonZeroFraction(_ text: String) -> Bool {
        var inFraction = false
        for c in text.utf8 {
            if c == UInt8(ascii: ".") { inFraction = true; continue }
            guard inFraction else { continue }
            guard (0x30...0x39).contains(c) else { return false }
            if c != UInt8(ascii: "0") { return true }
        }
        return false
    }
}
