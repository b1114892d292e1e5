/// One SQLite value, as bound to a parameter or read from a column.
public enum SQLiteValue: Sendable, Equatable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// The integer, if this is one.
    public var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// The text, if this is text.
    public var textValue: String? { if case .text(let value) = self { value } else { nil } }
    /// The bytes, if this is a blob.
    public var blobValue: [UInt8]? { if case .blob(let value) = self { value } else { nil } }
}
