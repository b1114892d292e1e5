import PushBridgeCore

/// One request a legacy double received, as it may be shown again: the credential and every
/// secret of the body replaced by a `sha256:` fingerprint (``Fingerprint/of(_:)``).
struct LegacyDoubleRecord: Sendable {
    /// Its place among everything the doubles received, from 1.
    var sequence: Int64
    /// The provider the double stands in for.
    var provider: DialectName
    /// The HTTP method.
    var method: String
    /// The path and query below the provider's prefix, as the caller sent it.
    var target: String
    /// The presented credential's fingerprint (OneSignal `Authorization`, Pushwoosh `auth`,
    /// BuzzKit bearer token); nil when none was presented.
    var credential: String?
    /// The body with its secrets replaced; nil when it was not JSON.
    var body: JSONValue?
    /// The body's length in bytes.
    var bodyBytes: Int
    /// When it arrived, Unix milliseconds.
    var receivedAt: Int64
    /// The status the double answered.
    var status: Int

    /// The record as served by `GET /_doubles/requests`.
    var json: JSONValue {
        .object([
            "seq": .int(sequence), "provider": .string(provider.rawValue), "method": .string(method), "path": .string(target),
            "credential": credential.map(JSONValue.string) ?? .null, "body": body ?? .null, "body_bytes": .int(Int64(bodyBytes)),
            "received_at": .int(receivedAt), "status": .int(Int64(status)),
        ])
    }
}
