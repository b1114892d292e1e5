import Foundation

/// REST-key authentication of the sending routes: `Authorization: Key <key>`,
/// `Authorization: Basic <key>` (the key literal, never base64) or `X-OP-API-Key: <key>`.
enum SandboxAuth {
    /// The outcome of checking a request's credentials against an app.
    enum Outcome: Equatable {
        /// A presented key matches the app's REST key.
        case allowed
        /// No usable credentials: 401.
        case missing
        /// Credentials presented but not valid for this app (or the app is unknown): 403.
        case denied
    }

    /// The keys a request presents, in the order they are tried.
    static func presentedKeys(_ request: HTTPRequest) -> [String] {
        var keys: [String] = []
        if let k = request.header("x-op-api-key")?.trimmingCharacters(in: .whitespaces), !k.isEmpty { keys.append(k) }
        if let auth = request.header("authorization") {
            let trimmed = auth.trimmingCharacters(in: .whitespaces)
            if let space = trimmed.firstIndex(of: " ") {
                let scheme = trimmed[..<space].lowercased()
                let key = trimmed[trimmed.index(after: space)...].trimmingCharacters(in: .whitespaces)
                if (scheme == "key" || scheme == "basic"), !key.isEmpty { keys.append(key) }
            }
        }
        return keys
    }

    /// Checks a request against an app (nil when the app does not exist).
    static func check(_ request: HTTPRequest, app: SandboxApp?) -> Outcome {
        let keys = presentedKeys(request)
        if keys.isEmpty { return .missing }
        guard let app else { return .denied }
        return keys.contains { Fingerprint.constantTimeEquals($0, app.restKey) } ? .allowed : .denied
    }

    /// The 401 body.
    static let missingMessage = "authorization: a REST key is required (Authorization: Key <key> or X-OP-API-Key: <key>)"
    /// The 403 body.
    static let deniedMessage = "authorization: the REST key is not valid for this app"
}
