/// Reads typed fields from a JSON object, remembers which keys were read, and collects every
/// type or presence error with the field's full path, so a decoder can report all of them and
/// then account for every key it did not read.
public struct FieldReader {
    /// The object being read.
    public let object: JSONObject
    /// The path of the object in the caller's body ("" for the root).
    public let path: String
    /// The members' key fingerprints, made here once, when a member of the object was not read
    /// by the parser (made in code); empty when every member holds the parser's fingerprint,
    /// which is then read from the member (issue 31, branch `translate9`: the array of
    /// fingerprints and read flags each reader made was an allocation and about 400
    /// instructions a OneSignal start).
    private let madeKeys: [KeyFingerprint]
    /// Whether each of the first 64 members was read so far (bit `i` for member `i`).
    private var readLow: UInt64 = 0
    /// Whether each member past the 64th was read so far (empty for an object of at most 64).
    private var readHigh: [Bool] = []
    /// One bit per member's key fingerprint (``KeyFingerprint/presenceBit``), all bits when a
    /// key's fingerprint is ``KeyFingerprint/unknown``: a key whose bit is clear is not in the
    /// object, and its lookup skips the scan of the members (most of a decoder's lookups are
    /// for keys the body does not hold: issue 31, branch `translate6`).
    private var present: UInt64 = 0
    /// Errors found so far, in reading order.
    public var errors: [TranslationError] = []

    /// A reader over an object at a path.
    public init(_ object: JSONObject, path: String = "") {
        self.object = object
        self.path = path
        // The parser's fingerprint of each key, made once while it read the key's bytes; a
        // member made otherwise is fingerprinted here (issue 31, branch `translate4`).
        var bits: UInt64 = 0
        let parsed = object.members.withUnsafeBufferPointer { members in
            for i in members.indices {
                guard members[i].fingerprint != .notMade else { return false }
                bits |= members[i].fingerprint.presenceBit
            }
            return true
        }
        if parsed {
            madeKeys = []
        } else {
            madeKeys = object.members.map { $0.fingerprint == .notMade ? KeyFingerprint($0.key) : $0.fingerprint }
            bits = 0
            for key in madeKeys { bits |= key.presenceBit }
        }
        present = bits
        if object.count > 64 { readHigh = Array(repeating: false, count: object.count - 64) }
    }

    /// The fingerprint of member `i`'s key.
    @inline(__always)
    private func fingerprint(_ i: Int, _ members: UnsafeBufferPointer<JSONMember>) -> KeyFingerprint {
        madeKeys.isEmpty ? members[i].fingerprint : madeKeys[i]
    }

    /// Whether member `i` was read.
    private func wasRead(_ i: Int) -> Bool { i < 64 ? readLow & (1 << UInt64(i)) != 0 : readHigh[i - 64] }

    /// The index of the first member whose key is `field`, or nil.
    @inline(__always)
    private func index(of field: FieldKey) -> Int? {
        let wanted = field.fingerprint
        guard present & wanted.presenceBit != 0 else { return nil }
        return object.members.withUnsafeBufferPointer { members in
            for i in members.indices where fingerprint(i, members).mayEqual(wanted) && members[i].key == field.name { return i }
            return nil
        }
    }

    /// The full path of a key of this object.
    public func fieldPath(_ key: String) -> String { path.isEmpty ? key : MessageText("\(path).\(key)").text }

    /// The raw value, marking the key read; JSON `null` counts as absent. The key's fingerprint
    /// is the one made with the key (a `static let` key makes it once).
    public mutating func raw(_ field: FieldKey, required: Bool = false) -> JSONValue? {
        var found: JSONValue?
        if let i = index(of: field) {
            if i < 64 { readLow |= 1 << UInt64(i) } else { readHigh[i - 64] = true }
            found = object.members[i].value
        }
        guard let v = found, v != .null else {
            if required { errors.append(TranslationError(field: fieldPath(field.name), rule: "is required")) }
            return nil
        }
        return v
    }

    /// ``raw(_:required:)-(FieldKey,_)`` for a key made at the call (fingerprinted each time).
    public mutating func raw(_ key: String, required: Bool = false) -> JSONValue? { raw(FieldKey(key), required: required) }

    /// True when the key is present and not null (does not mark it read).
    public func has(_ key: String) -> Bool {
        if let v = object[key], v != .null { return true }
        return false
    }

    /// ``has(_:)-(String)`` by the key's fingerprint (does not mark it read).
    public func has(_ key: FieldKey) -> Bool {
        guard let i = index(of: key) else { return false }
        return object.members[i].value != .null
    }

    private mutating func typeError(_ key: FieldKey, _ expected: String, _ got: JSONValue) {
        errors.append(TranslationError(field: fieldPath(key.name), rule: MessageText("must be \(expected), got \(got.typeName)").text))
    }

    /// A string field.
    public mutating func string(_ key: FieldKey, required: Bool = false) -> String? {
        guard let v = raw(key, required: required) else { return nil }
        guard case .string(let s) = v else { typeError(key, "a string", v); return nil }
        return s
    }

    /// An object field.
    public mutating func object(_ key: FieldKey, required: Bool = false) -> JSONObject? {
        guard let v = raw(key, required: required) else { return nil }
        guard case .object(let o) = v else { typeError(key, "an object", v); return nil }
        return o
    }

    /// An array field.
    public mutating func array(_ key: FieldKey, required: Bool = false) -> [JSONValue]? {
        guard let v = raw(key, required: required) else { return nil }
        guard case .array(let a) = v else { typeError(key, "an array", v); return nil }
        return a
    }

    /// An array of strings.
    public mutating func stringArray(_ key: FieldKey, required: Bool = false) -> [String]? {
        guard let a = array(key, required: required) else { return nil }
        var out: [String] = []
        out.reserveCapacity(a.count)
        for (i, v) in a.enumerated() {
            guard case .string(let s) = v else { notAString(key, i, v); return nil }
            out.append(s)
        }
        return out
    }

    /// The error of an array's element `i` that is not a string.
    private mutating func notAString(_ key: FieldKey, _ i: Int, _ v: JSONValue) {
        errors.append(TranslationError(field: MessageText("\(fieldPath(key.name))[\(i)]").text, rule: MessageText("must be a string, got \(v.typeName)").text))
    }

    /// An array of strings as the array of `JSONValue`s it is, without an array of `String`s
    /// made from it (for a caller that reads each string once: issue 31, branch `translate9`):
    /// the same checks, error and nil as ``stringArray(_:required:)``.
    public mutating func stringValues(_ key: FieldKey, required: Bool = false) -> [JSONValue]? {
        guard let a = array(key, required: required) else { return nil }
        for i in a.indices {
            guard case .string = a[i] else { notAString(key, i, a[i]); return nil }
        }
        return a
    }

    /// A number field.
    public mutating func number(_ key: FieldKey, required: Bool = false) -> JSONNumber? {
        guard let v = raw(key, required: required) else { return nil }
        guard case .number(let n) = v else { typeError(key, "a number", v); return nil }
        return n
    }

    /// An integer field (a number without fraction that fits in 64 bits).
    public mutating func integer(_ key: FieldKey, required: Bool = false) -> Int64? {
        guard let n = number(key, required: required) else { return nil }
        if let i = n.int64Value { return i }
        let d = n.doubleValue
        if d == d.rounded(), abs(d) < 9.2e18 { return Int64(d) }
        errors.append(TranslationError(field: fieldPath(key.name), rule: MessageText("must be an integer, got \(n.literal)").text))
        return nil
    }

    /// A boolean field.
    public mutating func bool(_ key: FieldKey, required: Bool = false) -> Bool? {
        guard let v = raw(key, required: required) else { return nil }
        guard case .bool(let b) = v else { typeError(key, "a boolean", v); return nil }
        return b
    }

    /// Members that were never read, in body order.
    public var unread: [JSONMember] {
        var out: [JSONMember] = []
        for i in object.members.indices where !wasRead(i) { out.append(object.members[i]) }
        return out
    }

    /// All collected errors merged into one (nil when there are none).
    public var combinedError: TranslationError? { TranslationError.combine(errors) }
}

extension TranslationError {
    /// One error that names every field: the first error's field and rule, all messages joined.
    public static func combine(_ errors: [TranslationError]) -> TranslationError? {
        guard let first = errors.first else { return nil }
        if errors.count == 1 { return first }
        return TranslationError(field: first.field, rule: first.rule, message: errors.map(\.message).joined(separator: "; "))
    }
}
