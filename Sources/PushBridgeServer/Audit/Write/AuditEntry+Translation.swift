import PushBridgeCore

extension AuditEntry {
    /// The entry for an inbound request, redacted: the body's secrets and the translation's
    /// device tokens are replaced by their ``Fingerprint`` (see ``Redaction``). `route` and
    /// `translation` are nil for requests that matched no route or were not translated.
    public init(requestId: String, receivedAt: Int64, path: String?, route: InboundRoute?, translation: Translation?,
                inboundBody: [UInt8], keyFingerprint: String?, targetApp: String? = nil) {
        self.init(requestId: requestId, receivedAt: receivedAt, path: path, route: route, translation: translation,
                  parsedBody: ParsedBody(inboundBody), keyFingerprint: keyFingerprint, targetApp: targetApp)
    }

    /// The same entry from a body the caller already parsed (the proxy parses each body once).
    /// `extraSecrets` (the caller's credential, the configured keys) are swept by value too.
    /// A request refused before it was authenticated (`unauthenticated`) keeps only a bounded,
    /// redacted excerpt of its body (``Redaction/refusedBody(_:dialect:extraSecrets:limit:fingerprint:)``)
    /// and no translation (readiness tells a request refused before admission by that: a
    /// `rejected` row without a translation, counted in no verdict).
    /// `made`: the request's scrubber of its body's secrets and `extraSecrets` (made with
    /// ``Fingerprint/of(_:)``), swept with when the body's secrets are those it was made for.
    public init(requestId: String, receivedAt: Int64, path: String?, route: InboundRoute?, translation: Translation?,
                parsedBody: ParsedBody, keyFingerprint: String?, targetApp: String? = nil, extraSecrets: [String] = [], unauthenticated: Bool = false,
                made: BodyScrubber? = nil) {
        let dialect = translation?.dialect ?? route?.dialect
        let fingerprint: (String) -> String = Fingerprint.of
        let requests = translation?.requests ?? []
        let redactedBody: String, translated: String?
        if unauthenticated {
            redactedBody = Redaction.refusedBody(parsedBody, dialect: dialect, extraSecrets: extraSecrets, fingerprint: fingerprint)
            translated = nil
        } else {
            // The translation is swept by the body's scrubber: the same secrets (those found and `extraSecrets`).
            let swept = Redaction.inboundSwept(parsedBody, dialect: dialect, extraSecrets: extraSecrets, made: made, fingerprint: fingerprint)
            redactedBody = swept.body
            translated = translation.map { _ in
                // Written over bytes, byte for byte the tree's text (``Redaction/openPushRequestsText``).
                Redaction.openPushRequestsText(requests, dialect: dialect, scrubber: swept.scrubber, fingerprint: fingerprint)
            }
        }
        self.init(
            requestId: requestId, receivedAt: receivedAt, path: path, dialect: dialect, route: translation?.route ?? route?.kind,
            sourceApp: translation?.sourceApp ?? route?.appId, targetApp: targetApp ?? requests.first?.appId,
            activityType: route?.activityType ?? Self.activityType(requests.first), activityId: requests.first?.activityId ?? route?.activityId,
            event: requests.first?.event, keyFingerprint: keyFingerprint,
            inboundBody: redactedBody, translated: translated,
            findings: translation?.findings ?? [])
        if translated != nil { openPushSends = requests.count }
    }

    private static func activityType(_ request: OpenPushRequest?) -> String? {
        guard case .start(let start)? = request?.payload else { return nil }
        return start.activityType
    }
}
