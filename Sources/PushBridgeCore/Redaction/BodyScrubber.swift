/// A scrubber the caller already made for one request's secrets: ``secrets`` found in its body
/// (``Redaction/secrets(in:dialect:)``) and the same `extraSecrets` it then passes to the audit's
/// redaction (``Redaction/inboundSwept(_:dialect:extraSecrets:made:fingerprint:)``). The
/// redaction sweeps with it instead of building the same automaton (and a fingerprint per
/// secret) again, but only when the secrets it finds in the body are exactly ``secrets``:
/// otherwise it builds its own, as without it, so a stale or mismatched one never changes what
/// is swept.
public struct BodyScrubber: Sendable {
    /// The secrets found in the body that `scrubber` was made with (besides the extra secrets).
    public var secrets: Set<String>
    /// The scrubber of `secrets` and the request's extra secrets.
    public var scrubber: SecretScrubber

    /// The scrubber `scrubber`, made for `secrets` and the request's extra secrets.
    public init(secrets: Set<String>, scrubber: SecretScrubber) {
        self.secrets = secrets
        self.scrubber = scrubber
    }
}
