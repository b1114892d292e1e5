import Foundation
import PushBridgeCore

/// Reads the secret a caller presents, the way each dialect's API carries it: OneSignal
/// `Authorization: Key …` (or `Basic …`, the key literally), BuzzKit `Authorization: Bearer …`,
/// Pushwoosh the `request.auth` body field (or `Authorization: Token …`).
public enum PresentedCredential {
    /// The secret, or nil when the caller presented none.
    public static func from(request: HTTPRequest, dialect: DialectName, body: JSONObject?) -> String? {
        let header = request.header("authorization").map(schemeValue)
        switch dialect {
        case .onesignal:
            return header ?? nil
        case .buzzkit:
            return header ?? nil
        case .pushwoosh:
            if let auth = body?["request"]?.objectValue?["auth"]?.stringValue, !auth.isEmpty { return auth }
            return header ?? nil
        }
    }

    /// The text after the scheme word (`Key`, `Basic`, `Bearer`, `Token`), trimmed; the whole
    /// value when there is no scheme word.
    static func schemeValue(_ value: String) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " ") else { return trimmed.isEmpty ? nil : trimmed }
        let rest = trimmed[trimmed.index(after: space)...].trimmingCharacters(in: .whitespaces)
        return rest.isEmpty ? nil : rest
    }
}
