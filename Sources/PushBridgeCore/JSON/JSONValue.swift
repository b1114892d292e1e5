/// A JSON value that keeps what the caller sent: numbers keep their literal text, objects keep
/// their key order, so integers stay integers and nested values arrive unchanged.
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its literal text.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object with its key order kept.
    case object(JSONObject)

    /// The JSON type name used in error messages ("string", "object", …).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The string, when this is a string.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The object, when this is an object.
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    /// The array, when this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    /// The number, when this is a number.
    public var numberValue: JSONNumber? { if case .number(let n) = self { n } else { nil } }
    /// The boolean, when this is a boolean.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }

    /// A number value made from an integer.
    public static func int(_ value: Int64) -> JSONValue { .number(JSONNumber(value)) }
    /// A number value made from a double.
    public static func double(_ value: Double) -> JSONValue { .number(JSONNumber(value)) }
}

/// A JSON number kept as its literal text, so `3`, `3.0` and `1e3` each survive as written.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal as it appears in JSON.
    public let literal: String

    /// Wraps a literal that the parser has already checked against the JSON number grammar.
    init(validatedLiteral: String) { literal = validatedLiteral }

    /// A number from an integer.
    public init(_ value: Int64) { literal = String(value) }

    /// A number from a double; integral values within ±2^53 are written without a fraction.
    public init(_ value: Double) {
        if value.isFinite, value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            literal = String(Int64(value))
        } else if value.isFinite {
            literal = String(value)
        } else {
            literal = "0"
        }
    }

    /// True when the literal has no fraction and no exponent.
    public var isInteger: Bool { !literal.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") } }

    /// The value as an integer when the literal is an integer that fits in 64 bits (a short
    /// one read from its bytes: ``shortDecimal(_:)``).
    public var int64Value: Int64? {
        if let short = Self.shortDecimal(literal) { return short }
        return isInteger ? Int64(literal) : nil
    }

    /// The value of a literal that is one to 18 decimal digits after an optional `-`, read
    /// from its bytes (18 digits cannot overflow 64 bits); nil for any other literal, which
    /// ``int64Value`` then reads as before. The same value `Int64(literal)` gives for such a
    /// literal, without its generic parse: about 200 instructions of a OneSignal start's
    /// `priority` (issue 31, branch `translate9`).
    static func shortDecimal(_ literal: String) -> Int64? {
        let read = literal.utf8.withContiguousStorageIfAvailable { bytes -> Int64? in
            let negative = bytes.first == UInt8(ascii: "-")
            var i = negative ? 1 : 0
            guard bytes.count > i, bytes.count - i <= 18 else { return nil }
            var value: Int64 = 0
            while i < bytes.count {
                let digit = bytes[i] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int64(digit)
                i += 1
            }
            return negative ? -value : value
        }
        return read ?? nil
    }

    /// The value as a double (always available for a valid literal).
    public var doubleValue: Double { Double(literal) ?? 0 }

    /// The literal text.
    public var description: String { literal }
}

/// One key and its value in a JSON object.
public struct JSONMember: Sendable, Equatable {
    /// The key.
    public var key: String { didSet { fingerprint = .notMade } }
    /// The value.
    public var value: JSONValue
    /// The key's fingerprint when the parser made it while reading the key's bytes, otherwise
    /// ``KeyFingerprint/notMade``: a `FieldReader` takes it instead of fingerprinting the key's
    /// `String` again (issue 31, branch `translate4`). Not part of `==`.
    var fingerprint: KeyFingerprint

    /// A member.
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
        fingerprint = .notMade
    }

    /// A member whose key's fingerprint is known (the parser's).
    init(_ key: String, _ value: JSONValue, fingerprint: KeyFingerprint) {
        self.key = key
        self.value = value
        self.fingerprint = fingerprint
    }

    /// Equal keys and values, as before the fingerprint was kept.
    public static func == (a: JSONMember, b: JSONMember) -> Bool { a.key == b.key && a.value == b.value }
}

/// A JSON object whose keys are unique and keep the order they were written in.
/// Equality ignores key order, as JSON does.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// The members in order.
    public private(set) var members: [JSONMember]

    /// An empty object.
    public init() { members = [] }

    /// An object from members whose keys are already unique.
    public init(members: [JSONMember]) { self.members = members }

    /// An object from a literal; later duplicates replace earlier ones.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = []
        for (k, v) in elements { self[k] = v }
    }

    /// The number of keys.
    public var count: Int { members.count }
    /// True when the object has no keys.
    public var isEmpty: Bool { members.isEmpty }
    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The value for a key; setting `nil` removes it, setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            for m in members where m.key == key { return m.value }
            return nil
        }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append(JSONMember(key, newValue))
            }
        }
    }

    /// Reserves room for members.
    public mutating func reserveCapacity(_ n: Int) { members.reserveCapacity(n) }

    /// Appends a member without checking for an existing key: the caller guarantees uniqueness.
    public mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
        members.append(JSONMember(key, value))
    }

    /// ``appendUnchecked(_:_:)`` with the key's fingerprint, as the parser made it.
    mutating func appendUnchecked(_ key: String, _ value: JSONValue, fingerprint: KeyFingerprint) {
        members.append(JSONMember(key, value, fingerprint: fingerprint))
    }

    /// Order-insensitive equality.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for m in lhs.members {
            guard let other = rhs[m.key], other == m.value else { return false }
        }
        return true
    }
}
