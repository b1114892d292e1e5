extension String {
    /// Whether this string equals `other` ignoring the case of ASCII letters (how HTTP
    /// compares header names), without making a lower-cased copy of either: `lowercased()`
    /// allocates for a string over 15 bytes (`X-PushBridge-Request-Id`), on every request.
    /// Bytes other than ASCII letters are compared as they are.
    func isASCIICaseInsensitive(_ other: String) -> Bool {
        let (a, b) = (utf8, other.utf8)
        guard a.count == b.count else { return false }
        return a.elementsEqual(b) { x, y in x == y || Self.asciiLower(x) == Self.asciiLower(y) }
    }

    /// `byte` with an ASCII upper-case letter made lower-case.
    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
