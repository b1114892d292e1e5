/// Percent-encoding and decoding of single URL path segments.
public enum PathEncoding {
    private static let unreserved: Set<UInt8> = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8))

    /// Encodes everything but RFC 3986 unreserved characters.
    public static func encodeSegment(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for b in s.utf8 {
            if unreserved.contains(b) {
                out.unicodeScalars.append(UnicodeScalar(b))
            } else {
                out += "%" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// Decodes `%XX` escapes; nil when an escape is malformed or the result is not UTF-8.
    public static func decodeSegment(_ s: Substring) -> String? {
        guard s.utf8.contains(UInt8(ascii: "%")) else { return String(s) }
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
