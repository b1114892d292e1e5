/// Removes secrets from what the audit keeps: API keys, Pushwoosh `auth`, bearer tokens and
/// device tokens are replaced by their fingerprint before anything is stored.
///
/// Pure: the caller passes the fingerprint function (the server's is SHA-256 through
/// libcrypto), so the core imports no C. Redaction is by default, not by list of known
/// fields only: any key in ``secretKeys`` at any depth is redacted, whatever its value's
/// type, and every secret found that way is then also removed wherever else its text appears
/// in the same document (a token the caller repeated in a free-text field does not survive).
public enum Redaction {
    /// Keys whose values are secrets wherever they appear (compared case-insensitively).
    public static let secretKeys: Set<String> = ["auth", "api_key", "rest_api_key", "authorization", "token", "push_token", "device_token"]

    /// Keys that are secrets in one dialect only: Pushwoosh `devices` are push tokens.
    public static func dialectSecretKeys(_ dialect: DialectName?) -> Set<String> {
        dialect == .pushwoosh ? ["devices"] : []
    }

    /// A bit per UTF-8 length of the keys of ``pushwooshSecretKeys`` (a superset of every
    /// dialect's): an ASCII key of another length is not secret. Lengths past 63 are looked up.
    static let secretKeyLengths: UInt64 = pushwooshSecretKeys.reduce(0) { mask, key in
        key.utf8.count < 64 ? mask | (1 << UInt64(key.utf8.count)) : mask
    }

    /// ``secretKeys`` with ``dialectSecretKeys(_:)``, built once.
    static let pushwooshSecretKeys = secretKeys.union(dialectSecretKeys(.pushwoosh))

    /// Every key that is secret in `dialect`.
    static func allSecretKeys(_ dialect: DialectName?) -> Set<String> {
        dialect == .pushwoosh ? pushwooshSecretKeys : secretKeys
    }

    /// Whether `key`, compared case-insensitively, is in `keys` (which are lower case). An
    /// ASCII key without capitals is looked up as it is; others are lower-cased first.
    static func isSecretKey(_ key: String, in keys: Set<String>) -> Bool {
        // Most keys are ASCII and of a length no secret key has: no hashing for them.
        assert(keys.isSubset(of: pushwooshSecretKeys), "the length filter knows only the built-in secret keys")
        let length = key.utf8.count
        if length < 64, secretKeyLengths & (1 << UInt64(length)) == 0, key.utf8.allSatisfy({ $0 < 0x80 }) { return false }
        if key.utf8.allSatisfy({ $0 < 0x80 && !($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) }) {
            return keys.contains(key)
        }
        return keys.contains(key.lowercased())
    }

    /// Secrets shorter than this are not swept from free text (a one-character "token" would
    /// otherwise erase that character everywhere); they are still redacted under their key.
    public static let minimumSweepLength = 6

    /// The inbound body as JSON text with every secret replaced by its fingerprint. A body
    /// that does not parse is stored as `{"unparseable": true, "bytes": N, "sha256": "…"}`:
    /// never its text, which may hold the credentials.
    public static func inboundBody(_ body: [UInt8], dialect: DialectName?, fingerprint: (String) -> String) -> String {
        guard let value = try? JSONParser.parse(body) else {
            return unparseable(body, fingerprint: fingerprint)
        }
        return JSONWriter.string(redacted(value, dialect: dialect, fingerprint: fingerprint).value)
    }

    /// ``inboundBody(_:dialect:fingerprint:)`` and ``secrets(inInbound:dialect:)`` of an
    /// already parsed body in one walk: the redacted JSON text (or the unparseable
    /// placeholder) and the secrets found in it.
    public static func inbound(_ body: ParsedBody, dialect: DialectName?, fingerprint: (String) -> String) -> (body: String, secrets: Set<String>) {
        guard let value = body.value else { return (unparseable(body.bytes, fingerprint: fingerprint), []) }
        let (redactedValue, secrets) = redacted(value, dialect: dialect, fingerprint: fingerprint)
        return (JSONWriter.string(redactedValue), secrets)
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
        collectSecrets(value, keys: allSecretKeys(dialect), into: &found)
        return found
    }

    /// `value` with secrets replaced, and the secrets that were found in it.
    public static func redacted(_ value: JSONValue, dialect: DialectName?, fingerprint: (String) -> String) -> (value: JSONValue, secrets: Set<String>) {
        var found = Set<String>()
        // One walk finds the secrets and fingerprints them under their keys.
        let keyed = redactedKeys(value, keys: allSecretKeys(dialect), fingerprint: fingerprint, collecting: &found) ?? value
        return (sweep(keyed, secrets: found, fingerprint: fingerprint), found)
    }

    /// Replaces every occurrence of any of `secrets` (of at least ``minimumSweepLength``
    /// characters) in the strings and keys of `value` by its fingerprint.
    public static func sweep(_ value: JSONValue, secrets: Set<String>, fingerprint: (String) -> String) -> JSONValue {
        // Longest first, so a secret that contains another is replaced whole.
        let ordered = secrets.filter { $0.utf8.count >= minimumSweepLength }.sorted { $0.utf8.count > $1.utf8.count }
        guard !ordered.isEmpty else { return value }
        let replacements = ordered.map { ($0, fingerprint($0)) }
        // ASCII secrets (every token and key in practice) are found by comparing bytes, which
        // is exact for them and far cheaper than `String.contains`'s character matching.
        if ordered.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) {
            let byteReplacements = replacements.map { (Array($0.0.utf8), $0.1) }
            let shortest = byteReplacements.last?.0.count ?? 0
            return map(value) { text in
                text.utf8.count < shortest ? text : sweepBytes(text, byteReplacements)
            }
        }
        return map(value) { text in
            var text = text
            for (secret, replacement) in replacements where text.contains(secret) { text = text.replacing(secret, with: replacement) }
            return text
        }
    }

    /// `text` with every occurrence of each ASCII secret (longest first) replaced, by bytes.
    static func sweepBytes(_ text: String, _ replacements: [([UInt8], String)]) -> String {
        var bytes: [UInt8]? = nil
        for (secret, replacement) in replacements {
            let found: Bool
            if let current = bytes {
                found = firstMatch(secret, in: current[...]) != nil
            } else {
                var text = text
                found = text.withUTF8 { firstMatch(secret, in: $0) != nil }
            }
            guard found else { continue }
            let haystack = bytes ?? Array(text.utf8)
            var out: [UInt8] = []
            out.reserveCapacity(haystack.count)
            var rest = haystack[...]
            while let at = firstMatch(secret, in: rest) {
                out.append(contentsOf: rest[rest.startIndex..<at])
                out.append(contentsOf: replacement.utf8)
                rest = rest[(at + secret.count)...]
            }
            out.append(contentsOf: rest)
            bytes = out
        }
        guard let bytes else { return text }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The index of the first occurrence of `needle` in `haystack`.
    static func firstMatch<C: RandomAccessCollection>(_ needle: [UInt8], in haystack: C) -> C.Index? where C.Element == UInt8, C.Index == Int {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var i = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count && haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    // MARK: Walking

    static func redactKeys(_ value: JSONValue, keys: Set<String>, fingerprint: (String) -> String) -> JSONValue {
        var ignored = Set<String>()
        return redactedKeys(value, keys: keys, fingerprint: fingerprint, collecting: &ignored) ?? value
    }

    /// ``redactKeys(_:keys:fingerprint:)``, or nil when nothing in `value` is under a secret
    /// key: the untouched parts of the tree are shared, not rebuilt. The values found under
    /// secret keys are added to `found` (what ``collectSecrets(_:keys:into:)`` finds).
    private static func redactedKeys(_ value: JSONValue, keys: Set<String>, fingerprint: (String) -> String, collecting found: inout Set<String>) -> JSONValue? {
        switch value {
        case .array(let items):
            var out: [JSONValue]?
            for (i, item) in items.enumerated() {
                guard let changed = redactedKeys(item, keys: keys, fingerprint: fingerprint, collecting: &found) else { continue }
                if out == nil { out = items }
                out?[i] = changed
            }
            return out.map(JSONValue.array)
        case .object(let object):
            var out: [JSONMember]?
            for (i, member) in object.members.enumerated() {
                let changed: JSONValue?
                if isSecretKey(member.key, in: keys) {
                    collectLeaves(member.value, into: &found)
                    changed = fingerprintLeaves(member.value, fingerprint: fingerprint)
                } else {
                    changed = redactedKeys(member.value, keys: keys, fingerprint: fingerprint, collecting: &found)
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

    static func collectSecrets(_ value: JSONValue, keys: Set<String>, into found: inout Set<String>) {
        switch value {
        case .array(let items):
            for item in items { collectSecrets(item, keys: keys, into: &found) }
        case .object(let object):
            for member in object.members {
                if isSecretKey(member.key, in: keys) {
                    collectLeaves(member.value, into: &found)
                } else {
                    collectSecrets(member.value, keys: keys, into: &found)
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
