/// Redact by default: a field named like a secret is written as its ``Fingerprint``, whatever
/// the code that logs it meant to do, so a key, `auth` value, bearer or device token cannot
/// reach a log line in clear text.
public enum LogRedaction {
    /// Field names (lower case, `-` read as `_`) whose values are always fingerprinted. A key
    /// that ends in `_` plus one of them (`caller_api_key`, `live_activity_token`) is too.
    public static let secretKeys: Set<String> = ["authorization", "auth", "api_key", "rest_key", "token", "bearer", "device_token"]

    /// Whether values under `key` are secret.
    public static func isSecret(key: String) -> Bool {
        if plainKeys.contains(key) { return false }
        return isSecretNamed(key)
    }

    /// Keys PushBridge's own lines use on every request, checked once here (through the full
    /// rule) so the per-line check is one lookup.
    static let plainKeys: Set<String> = Set([
        "request_id", "method", "path", "status", "duration_ms", "dialect", "app", "outcome", "remote",
        "route", "field", "kind", "severity", "reason", "error",
    ].filter { !isSecretNamed($0) })

    private static func isSecretNamed(_ key: String) -> Bool {
        let normalized = String(key.lowercased().map { $0 == "-" ? "_" : $0 })
        if secretKeys.contains(normalized) { return true }
        return secretKeys.contains { normalized.hasSuffix("_" + $0) }
    }

    /// The field as it may be logged: secret-named values become `sha256:…` fingerprints.
    public static func redact(_ field: LogField) -> LogField {
        guard isSecret(key: field.key) else { return field }
        return LogField(field.key, .string(Fingerprint.of(field.value.description)))
    }
}
