/// Removes secrets from what the audit keeps: API keys, Pushwoosh `auth`, bearer tokens and
/// device tokens are replaced by their fingerprint before anything is stored.
///
/// Pure: the caller passes the fingerprint function (the server's is SHA-256 through
/// libcrypto), so the core imports no C. Redaction is by default, not by list of known
/// fields only: any key in ``secretKeys`` at any depth is redacted, whatever its value's
/// type, and every secret found that way is then also removed wherever else its text appears
/// in the same document (a token the caller repeated in a free-text field does not survive).
public enum Redaction {
    /// Keys whose values are secrets wherever they appear. Keys are compared case- and
    /// separator-insensitively (``isSecretKey(_:dialect:)``): `deviceToken`, `Push-Token`,
    /// `API_KEY` match too, and so does any key ending in `token`, `api_key`, `rest_key`,
    /// `secret` or `password` (`pushToStartToken`, `live_activity_token`).
    public static let secretKeys: Set<String> = ["auth", "api_key", "rest_api_key", "authorization", "token", "push_token", "device_token", "bearer", "rest_key"]

    /// Keys that are secrets in one dialect only: Pushwoosh `devices` are push tokens.
    public static func dialectSecretKeys(_ dialect: DialectName?) -> Set<String> {
        dialect == .pushwoosh ? ["devices"] : []
    }

    /// ``secretKeys`` as compared: lower case, without separators.
    static let secretNames: Set<String> = Set(secretKeys.map(normalizedKey))
    /// Endings that make a key secret whatever comes before them (normalized).
    static let secretSuffixes = ["token", "apikey", "restkey", "secret", "password"]

    /// `key` lower-cased without `_`, `-`, `.` and spaces.
    static func normalizedKey(_ key: String) -> String {
        guard key.utf8.allSatisfy({ $0 < 0x80 }) else {
            return String(key.lowercased().unicodeScalars.filter { !isSeparator($0.value) }.map(Character.init))
        }
        // Written in place: a key of up to 15 bytes becomes a small string, no allocation.
        return String(unsafeUninitializedCapacity: key.utf8.count) { out in
            var n = 0
            for b in key.utf8 where !isSeparator(UInt32(b)) {
                out[n] = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b
                n += 1
            }
            return n
        }
    }

    /// The last letters a secret name, suffix or dialect key can end with (ASCII, lower case):
    /// a key that ends otherwise is not secret, and is not normalized to find that out.
    static let secretEndings: [Bool] = {
        var endings = [Bool](repeating: false, count: 128)
        for name in Array(secretNames) + secretSuffixes + ["devices"] { endings[Int(name.utf8.last ?? 0)] = true }
        return endings
    }()

    /// The last byte of `key` that is not a separator, lower-cased, when it is ASCII; nil when
    /// it is not ASCII (lower-casing may then change it) or there is none.
    private static func lastLetter(_ key: String) -> UInt8? {
        for b in key.utf8.reversed() where !isSeparator(UInt32(b)) {
            guard b < 0x80 else { return nil }
            return b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b
        }
        return nil
    }

    private static func isSeparator(_ v: UInt32) -> Bool {
        v == 0x5F || v == 0x2D || v == 0x2E || v == 0x20
    }

    /// Whether values under `key` are secret in `dialect` (see ``secretKeys``).
    public static func isSecretKey(_ key: String, dialect: DialectName?) -> Bool {
        // Keys of up to two bytes are never secret: no hashing for `to`, `en`, `id`.
        if key.utf8.count < 3 { return false }
        if let last = lastLetter(key), !secretEndings[Int(last)] { return false }
        // An ASCII key is told on its bytes (``isSecretKey(ascii:dialect:)``): normalizing a
        // key of 16 bytes or more made a string (two per OneSignal start, from the body's walk).
        if let ascii = key.utf8.withContiguousStorageIfAvailable({ bytes -> Bool? in
            bytes.allSatisfy { $0 < 0x80 } ? isSecretKey(ascii: bytes, dialect: dialect) : nil
        }), let told = ascii { return told }
        return isSecretName(normalizedKey(key), dialect: dialect)
    }

    /// The rule on a key's normalized name (``normalizedKey(_:)``): one of ``secretNames``,
    /// ending in one of ``secretSuffixes``, or Pushwoosh's `devices`. What
    /// ``isSecretKey(ascii:dialect:)`` must give for every ASCII key of three bytes or more.
    static func isSecretName(_ name: String, dialect: DialectName?) -> Bool {
        if secretNames.contains(name) || secretSuffixes.contains(where: { name.hasSuffix($0) }) { return true }
        return dialect == .pushwoosh && name == "devices"
    }

    /// Secrets shorter than this are not swept from free text (a one-character "token" would
    /// otherwise erase that character everywhere); they are still redacted under their key.
    public static let minimumSweepLength = 6

    /// The inbound body as JSON text with every secret replaced by its fingerprint. A body
    /// that does not parse is stored as `{"unparseable": true, "bytes": N, "sha256": "…"}`:
    /// never its text, which may hold the credentials.
    public static func inboundBody(_ body: [UInt8], dialect: DialectName?, fingerprint: (String) -> String) -> String {
        inboundSwept(ParsedBody(body), dialect: dialect, fingerprint: fingerprint).body
    }

    /// ``inboundBody(_:dialect:fingerprint:)`` and ``secrets(inInbound:dialect:)`` of an
    /// already parsed body in one walk: the redacted JSON text (or the unparseable
    /// placeholder) and the secrets found in it.
    /// `extraSecrets` are swept too (the caller's credential, the configured keys).
    public static func inbound(_ body: ParsedBody, dialect: DialectName?, extraSecrets: [String] = [], fingerprint: (String) -> String) -> (body: String, secrets: Set<String>) {
        let swept = inboundSwept(body, dialect: dialect, extraSecrets: extraSecrets, fingerprint: fingerprint)
        return (swept.body, swept.secrets)
    }

    /// ``inbound(_:dialect:extraSecrets:fingerprint:)`` and the scrubber it swept with (the
    /// secrets found and `extraSecrets`), so that the translation is swept by the same one
    /// instead of a second one built for the same secrets. `made`: the scrubber the caller
    /// already holds for the body's secrets and `extraSecrets` (``BodyScrubber``), swept with
    /// when the body's secrets are the ones it was made for.
    public static func inboundSwept(_ body: ParsedBody, dialect: DialectName?, extraSecrets: [String] = [], made: BodyScrubber? = nil,
                                    fingerprint: (String) -> String) -> (body: String, secrets: Set<String>, scrubber: SecretScrubber) {
        guard let value = body.value else {
            return (unparseable(body.bytes, fingerprint: fingerprint), [], SecretScrubber(secrets: extraSecrets, fingerprint: fingerprint))
        }
        // Over the bytes (no tree rebuilt, no text written again), except where the sweep
        // changes an object key: then the tree decides (see ``redactedBytes(_:dialect:extraSecrets:made:fingerprint:)``).
        if let overBytes = redactedBytes(body.bytes, dialect: dialect, extraSecrets: extraSecrets, made: made, fingerprint: fingerprint) { return overBytes }
        return inboundSweptByTree(value, dialect: dialect, extraSecrets: extraSecrets, fingerprint: fingerprint)
    }

    /// ``inboundSwept(_:dialect:extraSecrets:made:fingerprint:)`` of the parsed tree: secrets
    /// replaced in the tree, the tree written again. What the byte path must equal, byte for
    /// byte; used where the sweep changes an object key.
    static func inboundSweptByTree(_ value: JSONValue, dialect: DialectName?, extraSecrets: [String],
                                   fingerprint: (String) -> String) -> (body: String, secrets: Set<String>, scrubber: SecretScrubber) {
        let swept = sweptWithScrubber(value, dialect: dialect, extraSecrets: extraSecrets, fingerprint: fingerprint)
        return (JSONWriter.string(swept.value), swept.secrets, swept.scrubber)
    }

    /// The placeholder for a body that does not parse as JSON.
    public static func unparseable(_ body: [UInt8], fingerprint: (String) -> String) -> String {
        let summary: JSONObject = [
            "unparseable": .bool(true),
            "bytes": .int(Int64(body.count)),
            "sha256": .string(fingerprint(String(decoding: body, as: UTF8.self))),
        ]
        return JSONWriter.string(.object(summary))
    }

    /// The secret values in an inbound body (the values of ``secretKeys`` and, for Pushwoosh,
    /// every device token), for sweeping them from other documents such as the translation.
    public static func secrets(inInbound body: [UInt8], dialect: DialectName?) -> Set<String> {
        guard let value = try? JSONParser.parse(body) else { return [] }
        var found = Set<String>()
        collectSecrets(value, dialect: dialect, into: &found)
        return found
    }

    /// `value` with secrets replaced, and the secrets that were found in it: values under
    /// secret keys are fingerprinted, then those values and `extraSecrets` (the caller's
    /// credential, the configured keys) are swept from every string and key in one pass each.
    public static func redacted<S: Sequence>(_ value: JSONValue, dialect: DialectName?, extraSecrets: S,
                                             fingerprint: (String) -> String) -> (value: JSONValue, secrets: Set<String>) where S.Element == String {
        let swept = sweptWithScrubber(value, dialect: dialect, extraSecrets: extraSecrets, fingerprint: fingerprint)
        return (swept.value, swept.secrets)
    }

    /// ``redacted(_:dialect:extraSecrets:fingerprint:)`` and the scrubber it swept with.
    private static func sweptWithScrubber<S: Sequence>(_ value: JSONValue, dialect: DialectName?, extraSecrets: S,
                                                       fingerprint: (String) -> String) -> (value: JSONValue, secrets: Set<String>, scrubber: SecretScrubber)
    where S.Element == String {
        var found = Set<String>()
        // One walk finds the secrets and fingerprints them under their keys.
        let keyed = redactedKeys(value, dialect: dialect, fingerprint: fingerprint, collecting: &found) ?? value
        let scrubber = SecretScrubber(secrets: Array(found) + Array(extraSecrets), fingerprint: fingerprint)
        return (scrub(keyed, with: scrubber, fingerprint: fingerprint), found, scrubber)
    }

    /// ``redacted(_:dialect:extraSecrets:fingerprint:)`` with no other secrets.
    public static func redacted(_ value: JSONValue, dialect: DialectName?, fingerprint: (String) -> String) -> (value: JSONValue, secrets: Set<String>) {
        redacted(value, dialect: dialect, extraSecrets: [String](), fingerprint: fingerprint)
    }

    /// Replaces every occurrence of any of `secrets` (of at least ``minimumSweepLength``
    /// bytes), and every token-shaped hex run, in the strings and keys of `value` by its
    /// fingerprint: one pass over each string (see ``SecretScrubber``).
    public static func sweep(_ value: JSONValue, secrets: Set<String>, fingerprint: (String) -> String) -> JSONValue {
        scrub(value, with: SecretScrubber(secrets: secrets, fingerprint: fingerprint), fingerprint: fingerprint)
    }

    /// `value` with every string and key scrubbed by `scrubber`.
    public static func scrub(_ value: JSONValue, with scrubber: SecretScrubber, fingerprint: (String) -> String) -> JSONValue {
        map(value) { scrubber.scrub($0, fingerprint: fingerprint) }
    }

    // MARK: Walking

    static func redactKeys(_ value: JSONValue, dialect: DialectName?, fingerprint: (String) -> String) -> JSONValue {
        var ignored = Set<String>()
        return redactedKeys(value, dialect: dialect, fingerprint: fingerprint, collecting: &ignored) ?? value
    }

    /// ``redactKeys(_:keys:fingerprint:)``, or nil when nothing in `value` is under a secret
    /// key: the untouched parts of the tree are shared, not rebuilt. The values found under
    /// secret keys are added to `found` (what ``collectSecrets(_:keys:into:)`` finds).
    private static func redactedKeys(_ value: JSONValue, dialect: DialectName?, fingerprint: (String) -> String, collecting found: inout Set<String>) -> JSONValue? {
        switch value {
        case .array(let items):
            var out: [JSONValue]?
            for (i, item) in items.enumerated() {
                guard let changed = redactedKeys(item, dialect: dialect, fingerprint: fingerprint, collecting: &found) else { continue }
                if out == nil { out = items }
                out?[i] = changed
            }
            return out.map(JSONValue.array)
        case .object(let object):
            var out: [JSONMember]?
            for (i, member) in object.members.enumerated() {
                let changed: JSONValue?
                if isSecretKey(member.key, dialect: dialect) {
                    collectLeaves(member.value, into: &found)
                    changed = fingerprintLeaves(member.value, fingerprint: fingerprint)
                } else {
                    changed = redactedKeys(member.value, dialect: dialect, fingerprint: fingerprint, collecting: &found)
                }
                guard let changed else { continue }
                if out == nil { out = object.members }
                out?[i] = JSONMember(member.key, changed)
            }
            return out.map { .object(JSONObject(members: $0)) }
        default:
            return nil
        }
    }

    /// Every scalar under a secret key becomes its fingerprint (numbers and booleans too:
    /// a numeric key is as secret as a string one). `null` stays `null`; keys of nested
    /// objects are kept, their values replaced.
    static func fingerprintLeaves(_ value: JSONValue, fingerprint: (String) -> String) -> JSONValue {
        switch value {
        case .null: .null
        case .string(let text): .string(fingerprint(text))
        case .number(let number): .string(fingerprint(number.literal))
        case .bool(let flag): .string(fingerprint(flag ? "true" : "false"))
        case .array(let items): .array(items.map { fingerprintLeaves($0, fingerprint: fingerprint) })
        case .object(let object):
            .object(JSONObject(members: object.members.map { JSONMember($0.key, fingerprintLeaves($0.value, fingerprint: fingerprint)) }))
        }
    }

    static func collectSecrets(_ value: JSONValue, dialect: DialectName?, into found: inout Set<String>) {
        switch value {
        case .array(let items):
            for item in items { collectSecrets(item, dialect: dialect, into: &found) }
        case .object(let object):
            for member in object.members {
                if isSecretKey(member.key, dialect: dialect) {
                    collectLeaves(member.value, into: &found)
                } else {
                    collectSecrets(member.value, dialect: dialect, into: &found)
                }
            }
        default:
            break
        }
    }

    static func collectLeaves(_ value: JSONValue, into found: inout Set<String>) {
        switch value {
        case .null, .bool: break
        case .string(let text): found.insert(text)
        case .number(let number): found.insert(number.literal)
        case .array(let items): for item in items { collectLeaves(item, into: &found) }
        case .object(let object): for member in object.members { collectLeaves(member.value, into: &found) }
        }
    }

    /// Applies `transform` to every string and every object key.
    static func map(_ value: JSONValue, _ transform: (String) -> String) -> JSONValue {
        mapped(value, transform) ?? value
    }

    /// ``map(_:_:)``, or nil when `transform` changed nothing: the untouched parts of the
    /// tree are shared, not rebuilt. Keys of a ``JSONObject`` are unique, so replacing changed
    /// values in place is what rebuilding would give; when a key changes, the object is
    /// rebuilt key by key (two keys that become one keep the later value).
    private static func mapped(_ value: JSONValue, _ transform: (String) -> String) -> JSONValue? {
        switch value {
        case .string(let text):
            let new = transform(text)
            return new == text ? nil : .string(new)
        case .array(let items):
            var out: [JSONValue]?
            for (i, item) in items.enumerated() {
                guard let changed = mapped(item, transform) else { continue }
                if out == nil { out = items }
                out?[i] = changed
            }
            return out.map(JSONValue.array)
        case .object(let object):
            var keys: [String]?, values: [JSONValue]?
            for (i, member) in object.members.enumerated() {
                let key = transform(member.key)
                if key != member.key {
                    if keys == nil { keys = object.members.map(\.key) }
                    keys?[i] = key
                }
                if let changed = mapped(member.value, transform) {
                    if values == nil { values = object.members.map(\.value) }
                    values?[i] = changed
                }
            }
            if keys == nil && values == nil { return nil }
            let finalKeys = keys ?? object.members.map(\.key), finalValues = values ?? object.members.map(\.value)
            if keys == nil {
                return .object(JSONObject(members: zip(finalKeys, finalValues).map { JSONMember($0, $1) }))
            }
            var out = JSONObject()
            for (key, value) in zip(finalKeys, finalValues) { out[key] = value }
            return .object(out)
        default:
            return nil
        }
    }
}
