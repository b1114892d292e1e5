import COpenSSL

/// Short SHA-256 fingerprints: how secrets (API keys, Pushwoosh `auth`, bearer tokens, device
/// tokens) are identified in logs and the audit without ever appearing in clear text.
public enum Fingerprint {
    /// The first 12 hex digits of the SHA-256 of the secret, prefixed `sha256:`.
    public static func of(_ secret: String) -> String {
        // On the request path several times per request: the digest on the stack, the
        // secret's own UTF-8 hashed in place, the answer written into one string.
        withSHA256(secret) { digest in
            let prefix = "sha256:".utf8
            return String(unsafeUninitializedCapacity: prefix.count + 12) { out in
                var n = 0
                for byte in prefix { out[n] = byte; n += 1 }
                for byte in digest.prefix(6) {
                    out[n] = hexDigit(byte >> 4)
                    out[n + 1] = hexDigit(byte & 0x0F)
                    n += 2
                }
                return n
            }
        }
    }

    /// The short form of an existing SHA-256 digest: `sha256:` and its first 12 hex digits.
    public static func short(digest: [UInt8]) -> String { "sha256:" + hex(digest.prefix(6)) }

    /// The full SHA-256 digest (32 bytes) of the secret's UTF-8 bytes.
    public static func sha256(_ secret: String) -> [UInt8] {
        // Hashed over the string's own UTF-8 (no array of its bytes first).
        var text = secret
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        text.withUTF8 { pb_sha256($0.baseAddress, $0.count, &digest) }
        return digest
    }

    /// Calls `body` with the SHA-256 digest (32 bytes) of the secret's UTF-8 bytes, held on the
    /// stack: for the request path, where an array per digest is an allocation per request.
    public static func withSHA256<R>(_ secret: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(SHA256_DIGEST_LENGTH)) { digest in
            var text = secret
            text.withUTF8 { pb_sha256($0.baseAddress, $0.count, digest.baseAddress) }
            return try body(UnsafeBufferPointer(digest))
        }
    }

    /// The full SHA-256 digest (32 bytes) of `bytes`.
    public static func sha256(bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { pb_sha256($0.baseAddress, $0.count, &digest) }
        return digest
    }

    /// Constant-time comparison of two digests or other byte strings (lengths leak).
    public static func constantTimeEquals(_ x: [UInt8], _ y: [UInt8]) -> Bool {
        y.withUnsafeBufferPointer { constantTimeEquals(x, $0) }
    }

    /// ``constantTimeEquals(_:_:)`` of a digest and bytes held elsewhere (a digest on the stack).
    public static func constantTimeEquals(_ x: [UInt8], _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        guard x.count == y.count else { return false }
        if x.isEmpty { return true }
        return x.withUnsafeBufferPointer { px in CRYPTO_memcmp(px.baseAddress, y.baseAddress, x.count) == 0 }
    }

    /// Lower-case hex.
    public static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        var digits: [UInt8] = []
        digits.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            digits.append(hexDigit(byte >> 4))
            digits.append(hexDigit(byte & 0x0F))
        }
        return String(decoding: digits, as: UTF8.self)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Bytes from hex digits (either case); `nil` on odd length or a non-hex character.
    public static func bytes(fromHex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let hi = nibble(digits[i]), let lo = nibble(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Constant-time comparison of two secrets (lengths leak; contents do not).
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        constantTimeEquals(Array(a.utf8), Array(b.utf8))
    }
}
