import COpenSSL

/// Short SHA-256 fingerprints: how secrets (API keys, Pushwoosh `auth`, bearer tokens, device
/// tokens) are identified in logs and the audit without ever appearing in clear text.
public enum Fingerprint {
    /// The first 12 hex digits of the SHA-256 of the secret, prefixed `sha256:`.
    public static func of(_ secret: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(secret.utf8)
        _ = bytes.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
        let hex = digest.prefix(6).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return "sha256:" + hex
    }

    /// Constant-time comparison of two secrets (lengths leak; contents do not).
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        if x.isEmpty { return true }
        return x.withUnsafeBufferPointer { px in y.withUnsafeBufferPointer { py in CRYPTO_memcmp(px.baseAddress, py.baseAddress, x.count) == 0 } }
    }
}
