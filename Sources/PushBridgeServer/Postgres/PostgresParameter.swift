#if canImport(Glibc)
import Glibc
#endif

/// One parameter of a statement as libpq sends it: SQL NULL, text the server reads with its
/// type's input function (format 0), or bytes in its type's binary format (format 1, read by
/// the type's receive function; ``PostgresBinaryArray``).
enum PostgresParameter: Equatable {
    /// SQL NULL.
    case null
    /// Text, parsed by the parameter type's input function.
    case text(String)
    /// The parameter type's binary format, read by its receive function.
    case binary([UInt8])

    /// A text parameter, or NULL for nil.
    init(_ text: String?) {
        self = text.map(Self.text) ?? .null
    }

    /// Whether the server receives it in its type's binary format.
    var isBinary: Bool {
        if case .binary = self { true } else { false }
    }
}

extension PostgresConnection {
    /// Calls `body` with `parameters` as libpq's `paramValues`, `paramLengths` and
    /// `paramFormats`, copies that live for the call (a NULL value for SQL NULL). All text:
    /// no lengths and no formats (libpq reads each value up to its NUL), as before binary
    /// parameters.
    func withParameters<R>(_ parameters: [PostgresParameter],
                           _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = []
        pointers.reserveCapacity(parameters.count)
        var lengths: [Int32] = [], formats: [Int32] = []
        let binary = parameters.contains(where: \.isBinary)
        if binary {
            lengths.reserveCapacity(parameters.count)
            formats.reserveCapacity(parameters.count)
        }
        for parameter in parameters {
            switch parameter {
            case .null:
                pointers.append(nil)
                lengths.append(0)
                formats.append(0)
            case .text(let text):
                pointers.append(strdup(text))
                lengths.append(0)
                formats.append(0)
            case .binary(let bytes):
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
                bytes.withUnsafeBytes { raw in
                    if let base = raw.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: raw.count) }
                }
                pointers.append(copy)
                lengths.append(Int32(bytes.count))
                formats.append(1)
            }
        }
        defer {
            for (pointer, parameter) in zip(pointers, parameters) {
                if case .binary = parameter { pointer?.deallocate() } else { free(pointer) }
            }
        }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { values in
                    guard binary else { return body(values, nil, nil) }
                    return lengths.withUnsafeBufferPointer { lengths in
                        formats.withUnsafeBufferPointer { formats in body(values, lengths.baseAddress, formats.baseAddress) }
                    }
                }
            } ?? body(nil, nil, nil)
        }
    }
}
