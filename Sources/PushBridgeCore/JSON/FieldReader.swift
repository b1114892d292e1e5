/// Reads typed fields from a JSON object, remembers which keys were read, and collects every
/// type or presence error with the field's full path, so a decoder can report all of them and
/// then account for every key it did not read.
public struct FieldReader {
    /// The object being read.
    public let object: JSONObject
    /// The path of the object in the caller's body ("" for the root).
    public let path: String
    /// Per member (by index): its key's fingerprint, and whether it was read so far.
    private var slots: [(key: KeyFingerprint, read: Bool)]
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
        self.slots = object.members.map { ($0.fingerprint == .notMade ? KeyFingerprint($0.key) : $0.fingerprint, false) }
        for slot in slots { present |= slot.key.presenceBit }
    }

    /// The index of the first member whose key is `field`, or nil.
    @inline(__always)
    private func index(of field: FieldKey) -> Int? {
        let wanted = field.fingerprint
        guard present & wanted.presenceBit != 0 else { return nil }
        for i in slots.indices where slots[i].key.mayEqual(wanted) && object.members[i].key == field.name { return i }
        return nil
    }

    /// The full path of a key of this object.
    public func fieldPath(_ key: String) -> String { path.isEmpty ? key : MessageText("\(path).\(key)").text }

    /// The raw value, marking the key read; JSON `null` counts as absent. The key's fingerprint
    /// is the one made with the key (a `static let` key makes it once).
    public mutating func raw(_ field: FieldKey, required: Bool = false) -> JSONValue? {
        var found: JSONValue?
        if let i = index(of: field) {
            slots[i].read = true
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
            guard case .string(let s) = v else {
                errors.append(TranslationError(field: MessageText("\(fieldPath(key.name))[\(i)]").text, rule: MessageText("must be a string, got \(v.typeName)").text))
                return nil
            }
            out.append(s)
        }
        return out
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
    public var unread: [JSONMember] { zip(object.members, slots).compactMap { $1.read ? nil : $0 } }

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
