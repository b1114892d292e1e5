import PushBridgeCore

/// Redaction by value at the request's exits: whatever leaves for the audit, the log or the
/// caller passes through the request's ``Inbound/scrubber`` (the configured keys, the
/// presented credential and, once the caller is authenticated, every secret of its body).
extension Inbound {
    /// The scrubber for a request before authentication: the configured keys and the presented
    /// credential only (the body is not walked for a caller who may not be one). The same set
    /// comes request after request: its scrubber is made once (``SecretScrubberCache``).
    static func unauthenticatedScrubber(configured: [String], credential: String?) -> (extra: [String], scrubber: SecretScrubber) {
        // A set seen before is handed back as it was kept, the array of its secrets included
        // (making that array to look it up was an allocation per request).
        if let kept = SecretScrubberCache.unauthenticated.kept(configured: configured, then: credential) { return (kept.secrets, kept.scrubber) }
        var extra: [String] = []
        extra.reserveCapacity(configured.count + 1)
        extra.append(contentsOf: configured)
        if let credential { extra.append(credential) }
        return (extra, SecretScrubberCache.unauthenticated.scrubber(for: extra))
    }

    /// Marks the caller authenticated and adds its body's secrets to the scrubber.
    mutating func authenticated() {
        isAuthenticated = true
        guard let value = body.value else { return }
        let found = Redaction.secrets(in: value, dialect: route.dialect)
        if !found.isEmpty { scrubber = SecretScrubber(secrets: Array(found) + extraSecrets, fingerprint: Fingerprint.of) }
        bodySecrets = found
    }

    /// `text` with every secret replaced.
    func scrub(_ text: String) -> String { scrubber.scrub(text, fingerprint: Fingerprint.of) }

    /// The translation with its findings and error scrubbed.
    func scrub(_ translation: Translation) -> Translation {
        Redaction.scrub(translation, with: scrubber, fingerprint: Fingerprint.of)
    }

    /// The completion with every text it stores scrubbed.
    func scrub(_ completion: AuditCompletion) -> AuditCompletion { scrubber.scrub(completion) }

    /// The audit entry for this request, redacted by key and by value; a request refused before
    /// authentication keeps only an excerpt of its body. The redaction sweeps with the request's
    /// own scrubber when it finds the body's secrets ``authenticated()`` found (``BodyScrubber``).
    func auditEntry(translation: Translation?, targetApp: String? = nil) -> AuditEntry {
        AuditEntry(requestId: requestId, receivedAt: started, path: request.path, route: route, translation: translation,
                   parsedBody: body, keyFingerprint: keyFingerprint, targetApp: targetApp, extraSecrets: extraSecrets,
                   unauthenticated: !isAuthenticated, made: BodyScrubber(secrets: bodySecrets, scrubber: scrubber))
    }
}

/// What the exit replaces secrets in: the caller's answer and the audit completion.
extension SecretScrubber {
    /// The answer with its body scrubbed (a key echoed by the upstream never reaches the caller).
    func scrub(_ response: HTTPResponse) -> HTTPResponse {
        var out = response
        out.body = scrub(bytes: response.body, fingerprint: Fingerprint.of)
        return out
    }

    /// The completion with every text it stores scrubbed.
    func scrub(_ completion: AuditCompletion) -> AuditCompletion {
        let text = { (s: String) in self.scrub(s, fingerprint: Fingerprint.of) }
        var out = completion
        out.upstreamBody = completion.upstreamBody.map(text)
        out.responseBody = completion.responseBody.map(text)
        out.errorMessage = completion.errorMessage.map(text)
        // Only attempts with an error have text to scrub: without one, the same array is kept
        // (no new one per completion).
        if completion.attempts.contains(where: { $0.error != nil }) {
            out.attempts = completion.attempts.map { attempt in
                var a = attempt
                a.error = attempt.error.map(text)
                return a
            }
        }
        return out
    }
}
