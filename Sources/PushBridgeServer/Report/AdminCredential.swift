import Foundation

/// The admin token as a caller presents it, and whether it is the right one. Two schemes carry
/// it: `Authorization: Bearer <token>` (scripts, curl) and HTTP Basic with the token as the
/// password (`Authorization: Basic base64(user:token)`, what a browser sends after its login
/// prompt; any user name, `admin` in the docs). Both are compared in constant time over the
/// SHA-256 digests, so neither the token's bytes nor its length leak through timing; the
/// token is never logged or echoed.
enum AdminCredential {
    /// The realm a browser shows in its login prompt.
    static let realm = "PushBridge admin"

    /// The challenges of a 401: Basic first, which makes every browser prompt for a user name
    /// and password, then Bearer for API clients.
    static let challenges: [(name: String, value: String)] = [
        ("WWW-Authenticate", "Basic realm=\"\(realm)\", charset=\"UTF-8\""),
        ("WWW-Authenticate", "Bearer realm=\"\(realm)\""),
    ]

    /// The token an `Authorization` header value presents (the password of Basic), or nil
    /// when it presents none in a scheme this listener takes. Scheme names are
    /// case-insensitive (RFC 9110 §11.1).
    static func presented(_ header: String?) -> String? {
        guard let header, let space = header.firstIndex(of: " ") else { return nil }
        let scheme = header[..<space].lowercased()
        let value = header[header.index(after: space)...].trimmingCharacters(in: .whitespaces)
        switch scheme {
        case "bearer":
            return value
        case "basic":
            guard let decoded = Data(base64Encoded: value), let pair = String(data: decoded, encoding: .utf8),
                  let colon = pair.firstIndex(of: ":") else { return nil }
            return String(pair[pair.index(after: colon)...])
        default:
            return nil
        }
    }

    /// Whether `header` presents `token`, compared in constant time.
    static func matches(_ header: String?, token: Secret) -> Bool {
        guard let presented = presented(header) else { return false }
        return Fingerprint.constantTimeEquals(Fingerprint.sha256(presented), Fingerprint.sha256(token.value))
    }
}
