import Foundation
import PushBridgeCore

/// What a provider's double made of one request: its answer and the presented credential's
/// fingerprint (the body and path are recorded through ``LegacyDoubleSecrets``).
struct LegacyDoubleExchange {
    /// The answer.
    var response: HTTPResponse
    /// The presented credential's fingerprint, nil when none was presented.
    var credential: String?
}

/// Reading helpers the three doubles share.
enum LegacyDoubleRequest {
    /// The body parsed as JSON, or nil when it is empty or not JSON.
    static func json(_ request: HTTPRequest) -> JSONValue? {
        guard !request.body.isEmpty else { return nil }
        return try? JSONParser.parse(request.body)
    }

    /// The key of an `Authorization: <scheme> <key>` header whose scheme is one of `schemes`
    /// (lower case), trimmed; nil when absent, another scheme or empty.
    static func key(_ request: HTTPRequest, schemes: Set<String>) -> String? {
        guard let header = request.header("authorization")?.trimmingCharacters(in: .whitespaces),
              let space = header.firstIndex(of: " "), schemes.contains(header[..<space].lowercased()) else { return nil }
        let key = header[header.index(after: space)...].trimmingCharacters(in: .whitespaces)
        return key.isEmpty ? nil : key
    }

    /// The fingerprint of whatever `Authorization` header was sent (for the record even when
    /// its scheme is wrong), nil when there is none.
    static func headerFingerprint(_ request: HTTPRequest) -> String? {
        request.header("authorization").map(Fingerprint.of)
    }

    /// A fresh message id, as the providers' ids look: a lower-case UUID.
    static func newId() -> String { UUID().uuidString.lowercased() }

    /// Whether `value` is a non-blank string.
    static func isText(_ value: JSONValue?) -> Bool {
        guard let s = value?.stringValue else { return false }
        return !s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }
}
