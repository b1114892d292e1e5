extension Redaction {
    /// The secret values of a parsed body: the values under secret keys (see
    /// ``isSecretKey(_:dialect:)``), for sweeping them from everything else the request leaves.
    public static func secrets(in value: JSONValue, dialect: DialectName?) -> Set<String> {
        var found = Set<String>()
        collectSecrets(value, dialect: dialect, into: &found)
        return found
    }

    /// `translation` with its findings and error scrubbed, so that a secret the caller put in
    /// an odd place (a token as BuzzKit's `event`) is not echoed into the error, the log or the
    /// audit. The requests, which are what OpenPush receives, are left alone.
    public static func scrub(_ translation: Translation, with scrubber: SecretScrubber, fingerprint: (String) -> String) -> Translation {
        var out = translation
        func scrub(_ text: String) -> String { scrubber.scrub(text, fingerprint: fingerprint) }
        out.findings = translation.findings.map { finding in
            var f = finding
            f.field = scrub(f.field)
            f.message = scrub(f.message)
            return f
        }
        if let error = translation.error {
            out.error = TranslationError(field: scrub(error.field), rule: scrub(error.rule), message: scrub(error.message))
        }
        return out
    }
}
