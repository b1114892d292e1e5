extension String {
    /// The longest prefix of at most `maxBytes` UTF-8 bytes that ends on a scalar boundary (a
    /// multi-byte character is dropped whole, never cut in half); the string itself when it fits.
    /// Used wherever a value is bounded by bytes: log values, metric labels, audit bodies.
    func utf8Prefix(maxBytes: Int) -> String {
        let utf8 = self.utf8
        guard utf8.count > maxBytes else { return self }
        var end = utf8.index(utf8.startIndex, offsetBy: max(0, maxBytes))
        // Back up over continuation bytes (10xxxxxx) to the start of the cut scalar.
        while end > utf8.startIndex && utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}
