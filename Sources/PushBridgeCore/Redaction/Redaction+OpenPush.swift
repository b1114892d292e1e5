extension Redaction {
    /// The translated requests as the audit keeps them: `[{"method", "path", "body"}]` with
    /// device tokens fingerprinted.
    ///
    /// Which values are tokens is decided by where they came from, not by guessing at their
    /// shape: for Pushwoosh, whose `devices` (push tokens) become `include_subscription_ids`
    /// or `include_aliases.<label>`, every targeting id is fingerprinted, whatever the
    /// configured device targeting. Keys in ``secretKeys`` are redacted at any depth, and
    /// `secrets` (typically ``secrets(inInbound:dialect:)`` of the caller's body) are swept
    /// from every string, path included, so a token that reached the translation another way
    /// does not survive either. OneSignal and BuzzKit targeting ids are subscription ids and
    /// external ids, not tokens, and are kept.
    public static func openPushRequests(_ requests: [OpenPushRequest], dialect: DialectName?, secrets: Set<String> = [], fingerprint: (String) -> String) -> JSONValue {
        openPushRequests(requests, dialect: dialect, scrubber: SecretScrubber(secrets: secrets, fingerprint: fingerprint), fingerprint: fingerprint)
    }

    /// ``openPushRequests(_:dialect:secrets:fingerprint:)`` with a scrubber already built.
    public static func openPushRequests(_ requests: [OpenPushRequest], dialect: DialectName?, scrubber: SecretScrubber, fingerprint: (String) -> String) -> JSONValue {
        let items = requests.map { request -> JSONValue in
            var body = request.body
            if dialect == .pushwoosh { body = fingerprintTargeting(body, fingerprint: fingerprint) }
            var object = JSONObject()
            object.appendUnchecked("method", .string(request.method))
            object.appendUnchecked("path", .string(request.path))
            object.appendUnchecked("body", redactKeys(.object(body), dialect: nil, fingerprint: fingerprint))
            if let sendAt = request.sendAt { object.appendUnchecked("send_at", .int(sendAt.unixSeconds)) }
            return .object(object)
        }
        return scrub(.array(items), with: scrubber, fingerprint: fingerprint)
    }

    /// The OpenPush targeting keys that carry Pushwoosh device tokens.
    public static let tokenTargetingKeys: Set<String> = ["include_subscription_ids", "include_aliases"]

    /// `body` with every id under ``tokenTargetingKeys`` fingerprinted (alias labels kept).
    static func fingerprintTargeting(_ body: JSONObject, fingerprint: (String) -> String) -> JSONObject {
        var out = JSONObject()
        out.reserveCapacity(body.count)
        for member in body.members {
            let value = tokenTargetingKeys.contains(member.key) ? fingerprintLeaves(member.value, fingerprint: fingerprint) : member.value
            out.appendUnchecked(member.key, value)
        }
        return out
    }
}
