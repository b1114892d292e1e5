/// A one-dimensional array in PostgreSQL's binary format (what `array_recv` reads): a
/// statement's `unnest($n::TYPE[])` parameter sent as format 1 is copied by the server element
/// by element, where the text form (`{"a","b",NULL}`) is parsed by `array_in`, each element
/// unquoted and then read by its type's input function (`docs/benchmarks.md`, "PostgreSQL
/// binds and statements").
///
/// The layout: the number of dimensions (1, or 0 for an empty array), whether an element is
/// NULL (0 or 1), the element type's OID, the dimension's length and lower bound (1), then each
/// element as its length (-1 for NULL) and its bytes, every integer big-endian. A text element
/// is its UTF-8 bytes, a `BIGINT` eight bytes, a `DOUBLE PRECISION` its IEEE 754 bits.
///
/// Each element reads back exactly as the text form's: ``element(_:of:into:)`` refuses a value
/// whose binary form could differ (a text holding NUL, which the text form cuts; an integer
/// column given a real or a text), and the caller then sends that column as text.
enum PostgresBinaryArray {
    /// An element type and its OID (`pg_type`).
    enum Element: UInt32 {
        /// `text`.
        case text = 25
        /// `bigint` (`int8`).
        case bigint = 20
        /// `double precision` (`float8`).
        case double = 701

        /// The element type named as the audit's columns name them (``AuditRequestColumn/Kind/type(sqlite:)``);
        /// nil for another type.
        init?(sqlType: String) {
            switch sqlType.uppercased() {
            case "TEXT": self = .text
            case "BIGINT", "INT8": self = .bigint
            case "DOUBLE PRECISION", "FLOAT8": self = .double
            default: return nil
            }
        }
    }

    /// The array of `values` with elements of type `element`; nil when a value's binary form
    /// might not read back as its text form does (then send the column as text).
    static func encode<Values: Collection<SQLiteValue>>(_ values: Values, of element: Element) -> [UInt8]? {
        var bytes = header(count: values.count, of: element, elementBytes: element == .text ? 64 : 12)
        var hasNull = false
        for value in values {
            guard let isNull = Self.element(value, of: element, into: &bytes) else { return nil }
            hasNull = hasNull || isNull
        }
        if hasNull { set(1, at: flagsAt, in: &bytes) }
        return bytes
    }

    /// A `BIGINT[]` of `values`, none NULL: what the text form `{1,2,3}` reads as, without
    /// `array_in` parsing each element's digits (the shared pacer's windows, hundreds of grant
    /// times a row; `docs/benchmarks.md`, "PostgreSQL CPU per request, the pacer's rows").
    static func bigints<Values: Collection<Int64>>(_ values: Values) -> [UInt8] {
        var bytes = header(count: values.count, of: .bigint, elementBytes: 12)
        for value in values {
            appendWord(8, to: &bytes)
            appendDoubleWord(UInt64(bitPattern: value), to: &bytes)
        }
        return bytes
    }

    /// Where the header's has-NULL flag is (``set(_:at:in:)`` it once a NULL element is written).
    private static let flagsAt = 4

    /// The array's header for `count` elements of type `element` (no NULL yet), with room for
    /// the elements at about `elementBytes` each.
    private static func header(count: Int, of element: Element, elementBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + count * elementBytes)
        appendWord(count == 0 ? 0 : 1, to: &bytes)
        appendWord(0, to: &bytes)
        appendWord(Int32(bitPattern: element.rawValue), to: &bytes)
        if count > 0 {
            appendWord(Int32(count), to: &bytes)
            appendWord(1, to: &bytes)
        }
        return bytes
    }

    /// Appends `value` as an element of type `element` (its length, then its bytes); whether it
    /// is NULL, or nil (nothing appended) when it has no binary form that reads back as its
    /// text form (``PostgresConnection/text(_:)``) does.
    private static func element(_ value: SQLiteValue, of element: Element, into bytes: inout [UInt8]) -> Bool? {
        switch (element, value) {
        case (_, .null):
            appendWord(-1, to: &bytes)
            return true
        case (_, .real(let real)) where !real.isFinite:
            // The text form sends a real that is not finite as NULL too.
            appendWord(-1, to: &bytes)
            return true
        case (.bigint, .integer(let integer)):
            appendWord(8, to: &bytes)
            appendDoubleWord(UInt64(bitPattern: integer), to: &bytes)
        case (.double, .real(let real)):
            appendWord(8, to: &bytes)
            appendDoubleWord(real.bitPattern, to: &bytes)
        case (.double, .integer(let integer)) where integer.magnitude <= 1 << 53:
            // Exact as a double, as the server's `float8in` reads its digits.
            appendWord(8, to: &bytes)
            appendDoubleWord(Double(integer).bitPattern, to: &bytes)
        case (.text, _):
            guard let text = PostgresConnection.text(value) else {
                appendWord(-1, to: &bytes)
                return true
            }
            let lengthAt = bytes.count
            appendWord(0, to: &bytes)
            bytes.append(contentsOf: text.utf8)
            let length = bytes.count - lengthAt - 4
            // A NUL ends a text parameter; the writer escapes each one before (`\u0000`).
            guard !bytes[(lengthAt + 4)...].contains(0), let exact = Int32(exactly: length) else {
                bytes.removeSubrange(lengthAt...)
                return nil
            }
            set(exact, at: lengthAt, in: &bytes)
        default:
            return nil
        }
        return false
    }

    private static func appendWord(_ value: Int32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(bitPattern: value).bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func appendDoubleWord(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Writes `value` over the four bytes at `index`.
    private static func set(_ value: Int32, at index: Int, in bytes: inout [UInt8]) {
        let raw = UInt32(bitPattern: value)
        for offset in 0..<4 { bytes[index + offset] = UInt8(truncatingIfNeeded: raw >> (24 - 8 * offset)) }
    }
}
