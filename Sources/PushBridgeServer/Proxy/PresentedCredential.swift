import Foundation
import PushBridgeCore

/// Reads the secret a caller presents, the way each dialect's API carries it: OneSignal
/// `Authorization: Key …` (or `Basic …`, the key literally), BuzzKit `Authorization: Bearer …`,
/// Pushwoosh the `request.auth` body field, or `Authorization: Token …` when the body has no
/// `auth` (the body wins when both are present; see docs/security.md).
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

    /// Whether the credential ``from(request:dialect:body:)`` reads comes from a header: always
    /// for OneSignal and BuzzKit; for Pushwoosh when the body's `auth` is absent, null or "".
    public static func isInHeader(dialect: DialectName, body: JSONObject?) -> Bool {
        guard dialect == .pushwoosh, let auth = body?["request"]?.objectValue?["auth"] else { return true }
        if case .null = auth { return true }
        return auth.stringValue?.isEmpty ?? false
    }

    /// The text after the scheme word (`Key`, `Basic`, `Bearer`, `Token`), trimmed; the whole
    /// value when there is no scheme word.
    /// Trims like `trimmingCharacters(in: .whitespaces)` (tab and Unicode space separators)
    /// without bridging to `NSString`, which cost 2% of the proxy's CPU under load (perf).
    static func schemeValue(_ value: String) -> String? {
        let trimmed = trimmingWhitespace(Substring(value))
        guard let space = trimmed.firstIndex(of: " ") else { return trimmed.isEmpty ? nil : String(trimmed) }
        let rest = trimmingWhitespace(trimmed[trimmed.index(after: space)...])
        return rest.isEmpty ? nil : String(rest)
    }

    /// `text` without leading and trailing tabs and Unicode space separators (category Zs).
    private static func trimmingWhitespace(_ text: Substring) -> Substring {
        var scalars = text.unicodeScalars
        let isWhitespace = { (s: Unicode.Scalar) in s == "\t" || s.properties.generalCategory == .spaceSeparator }
        while let first = scalars.first, isWhitespace(first) { scalars.removeFirst() }
        while let last = scalars.last, isWhitespace(last) { scalars.removeLast() }
        return Substring(scalars)
    }
}
