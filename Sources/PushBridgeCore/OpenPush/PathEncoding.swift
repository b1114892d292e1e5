/// Percent-encoding and decoding of single URL path segments.
public enum PathEncoding {
    /// RFC 3986 unreserved: `A-Z a-z 0-9 - . _ ~`.
    private static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
    }

    /// Encodes everything but RFC 3986 unreserved characters.
    public static func encodeSegment(_ s: String) -> String {
        // Ids are nearly always unreserved already: then the text is the encoding.
        if s.utf8.allSatisfy(isUnreserved) { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for b in s.utf8 {
            if isUnreserved(b) {
                out.unicodeScalars.append(UnicodeScalar(b))
            } else {
                out += "%" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// Decodes `%XX` escapes; nil when an escape is malformed or the result is not UTF-8.
    public static func decodeSegment(_ s: Substring) -> String? {
        guard s.containsUTF8(UInt8(ascii: "%")) else { return String(s) }
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b != UInt8(ascii: "%") { bytes.append(b); continue }
            guard it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(v)
            it = it.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
