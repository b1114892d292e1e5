import PushBridgeCore

/// A value in an event-log line. JSON lines keep its type; logfmt writes its text.
public enum LogValue: Sendable, Equatable, CustomStringConvertible,
    ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral {
    /// Text; quoted and escaped as the format requires.
    case string(String)
    /// An integer.
    case int(Int64)
    /// A floating-point number; non-finite values are written as strings (`NaN`, `+Inf`, `-Inf`).
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)

    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer value.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point value.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// The value's text as logfmt writes it before quoting (`3`, `2.5`, `true`, `NaN`).
    public var description: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .bool(let b): b ? "true" : "false"
        case .double(let d):
            if d.isNaN { "NaN" } else if d.isInfinite { d > 0 ? "+Inf" : "-Inf" } else { JSONNumber(d).literal }
        }
    }

    /// The value as JSON: numbers and booleans keep their type.
    var json: JSONValue {
        switch self {
        case .string(let s): .string(s)
        case .int(let i): .int(i)
        case .bool(let b): .bool(b)
        case .double(let d): d.isFinite ? .double(d) : .string(description)
        }
    }
}

/// One `key=value` pair of an event-log line; fields keep the order they are given in.
public struct LogField: Sendable, Equatable {
    /// The key; characters other than letters, digits, `_`, `.` and `-` are written as `_`.
    public var key: String
    /// The value.
    public var value: LogValue

    /// A field.
    public init(_ key: String, _ value: LogValue) {
        self.key = key
        self.value = value
    }
}
