import COpenSSL

/// Name-based UUIDs, version 5 (RFC 9562 §5.5): the SHA-1 of a namespace UUID's 16 bytes and
/// a name's UTF-8 bytes, cut to 16 bytes, with the version and variant bits set. The same
/// namespace and name always give the same UUID.
enum NameBasedUUID {
    /// The UUIDv5 of `name` in `namespace` (16 bytes), as 16 bytes.
    static func v5(namespace: [UInt8], name: String) -> [UInt8] {
        precondition(namespace.count == 16, "a namespace is a UUID's 16 bytes")
        // Two per start on the request path: the namespace and the name hashed where they
        // are, the digest on the stack; the 16 bytes are the one allocation.
        var name = name
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(SHA_DIGEST_LENGTH)) { digest in
            namespace.withUnsafeBufferPointer { space in
                name.withUTF8 { pb_sha1_two(space.baseAddress, space.count, $0.baseAddress, $0.count, digest.baseAddress) }
            }
            var b = Array(digest.prefix(16))
            b[6] = (b[6] & 0x0F) | 0x50
            b[8] = (b[8] & 0x3F) | 0x80
            return b
        }
    }

    /// The lower-case hex digits, made once (not an array per key).
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `bytes` (16) in the 8-4-4-4-12 lower-case hex form.
    static func text(_ bytes: [UInt8]) -> String {
        let digits = hexDigits
        // Written into the string's own storage: one allocation per key.
        return String(unsafeUninitializedCapacity: bytes.count * 2 + 4) { out in
            var n = 0
            for (i, byte) in bytes.enumerated() {
                if i == 4 || i == 6 || i == 8 || i == 10 { out[n] = UInt8(ascii: "-"); n += 1 }
                out[n] = digits[Int(byte >> 4)]
                out[n + 1] = digits[Int(byte & 0x0F)]
                n += 2
            }
            return n
        }
    }

    /// The 16 bytes of a UUID in its text form (hyphens anywhere, hex in any case), or nil.
    static func bytes(_ text: String) -> [UInt8]? {
        let digits = String(decoding: text.utf8.filter { $0 != UInt8(ascii: "-") }, as: UTF8.self)
        guard digits.utf8.count == 32 else { return nil }
        return Fingerprint.bytes(fromHex: digits)
    }
}
