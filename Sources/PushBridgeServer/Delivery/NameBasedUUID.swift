import COpenSSL

/// Name-based UUIDs, version 5 (RFC 9562 §5.5): the SHA-1 of a namespace UUID's 16 bytes and
/// a name's UTF-8 bytes, cut to 16 bytes, with the version and variant bits set. The same
/// namespace and name always give the same UUID.
enum NameBasedUUID {
    /// The UUIDv5 of `name` in `namespace` (16 bytes), as 16 bytes: ``v5(namespace:name:into:)``
    /// written into the array's own storage.
    static func v5(namespace: [UInt8], name: String) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 16) { out, count in
            v5(namespace: namespace, name: name, into: out)
            count = 16
        }
    }

    /// The text form of the UUIDv5 of `inner` in the UUIDv5 of `outer` in `namespace`: what
    /// `text(v5(namespace: v5(namespace: namespace, name: outer), name: inner))` gives, with
    /// both digests and both UUIDs on the stack; the string is the one allocation (issue 31:
    /// the two 16-byte arrays were two per scoped key).
    static func nestedV5Text(namespace: [UInt8], outer: String, inner: String) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { room in
            let first = UnsafeMutableBufferPointer(rebasing: room[0..<16])
            let second = UnsafeMutableBufferPointer(rebasing: room[16..<32])
            v5(namespace: namespace, name: outer, into: first)
            v5(namespace: UnsafeBufferPointer(first), name: inner, into: second)
            return text(UnsafeBufferPointer(second))
        }
    }

    /// Writes the UUIDv5 of `name` in `namespace` (a UUID's 16 bytes) into `out` (16 bytes):
    /// the one path both forms above take from a namespace array.
    static func v5(namespace: [UInt8], name: String, into out: UnsafeMutableBufferPointer<UInt8>) {
        precondition(namespace.count == 16, "a namespace is a UUID's 16 bytes")
        namespace.withUnsafeBufferPointer { v5(namespace: $0, name: name, into: out) }
    }

    /// Writes the UUIDv5 of `name` in `namespace` (16 bytes) into `out` (16 bytes): the
    /// namespace and the name hashed where they are, the digest on the stack.
    private static func v5(namespace: UnsafeBufferPointer<UInt8>, name: String, into out: UnsafeMutableBufferPointer<UInt8>) {
        var name = name
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(SHA_DIGEST_LENGTH)) { digest in
            name.withUTF8 { pb_sha1_two(namespace.baseAddress, namespace.count, $0.baseAddress, $0.count, digest.baseAddress) }
            for i in 0..<16 { out[i] = digest[i] }
            out[6] = (out[6] & 0x0F) | 0x50
            out[8] = (out[8] & 0x3F) | 0x80
        }
    }

    /// The lower-case hex digits, made once (not an array per key).
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `bytes` (16) in the 8-4-4-4-12 lower-case hex form.
    static func text(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { text($0) }
    }

    /// `bytes` (16) in the 8-4-4-4-12 lower-case hex form, from wherever they are.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let digits = hexDigits
        // Written into the string's own storage: one allocation per key.
        return String(unsafeUninitializedCapacity: bytes.count * 2 + 4) { out in
            var n = 0
            for i in bytes.indices {
                let byte = bytes[i]
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
