import PushBridgeCore

/// What of a request a legacy double may show again (`GET /_doubles/requests`), redacted as the
/// audit redacts an inbound request: every value under a secret key (the Pushwoosh `auth`,
/// device tokens, Pushwoosh `devices`, …) and the presented credential (the `Authorization`
/// header and the key or bearer token in it) replaced by its fingerprint wherever the body or
/// the path repeats it, by value, and every token-shaped hex run too.
enum LegacyDoubleSecrets {
    /// The body and the path below the provider's prefix as they may be recorded; the body nil
    /// when it is empty or not JSON.
    static func recorded(_ request: HTTPRequest, target: String, provider: DialectName) -> (body: JSONValue?, target: String) {
        let presented = credentials(request)
        guard let body = LegacyDoubleRequest.json(request) else {
            return (nil, SecretScrubber(secrets: presented, fingerprint: Fingerprint.of).scrub(target, fingerprint: Fingerprint.of))
        }
        let (redacted, found) = Redaction.redacted(body, dialect: provider, extraSecrets: presented, fingerprint: Fingerprint.of)
        let scrubber = SecretScrubber(secrets: Array(found) + presented, fingerprint: Fingerprint.of)
        return (redacted, scrubber.scrub(target, fingerprint: Fingerprint.of))
    }

    /// The credential as presented: the whole `Authorization` header and the key after its
    /// scheme (`Key …`, `Basic …`, `Bearer …`); empty without one.
    static func credentials(_ request: HTTPRequest) -> [String] {
        guard let header = request.header("authorization")?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return [] }
        guard let space = header.firstIndex(of: " ") else { return [header] }
        let key = header[header.index(after: space)...].trimmingCharacters(in: .whitespaces)
        return key.isEmpty ? [header] : [header, key]
    }
}
