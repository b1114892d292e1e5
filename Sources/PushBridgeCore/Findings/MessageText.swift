/// A finding's or an error's sentence built as UTF-8 bytes: `MessageText("… \(name) …").text`
/// is the same text as the `String` interpolation `"… \(name) …"`, byte for byte, without
/// `String`'s append (which checks each piece's join for grapheme breaks and grows the text
/// piece by piece: about 400 instructions a piece, a tenth of a OneSignal start's translation
/// in issue 31's profile). The pieces are copied into one byte buffer sized for the literal,
/// then made a `String` once.
public struct MessageText: ExpressibleByStringInterpolation, Sendable {
    /// The sentence.
    public let text: String

    /// A sentence without interpolations.
    public init(stringLiteral value: String) { text = value }

    /// A sentence from its interpolated pieces.
    public init(stringInterpolation: Pieces) {
        text = String(decoding: stringInterpolation.bytes, as: UTF8.self)
    }

    /// The pieces of a ``MessageText`` as they are appended: text and integers, as `String`
    /// interpolation writes them.
    public struct Pieces: StringInterpolationProtocol, Sendable {
        /// The UTF-8 bytes so far.
        var bytes: [UInt8]

        /// Room for the literal and a short value per interpolation.
        public init(literalCapacity: Int, interpolationCount: Int) {
            bytes = []
            bytes.reserveCapacity(literalCapacity + 24 * interpolationCount)
        }

        /// Appends a literal piece.
        public mutating func appendLiteral(_ literal: String) { append(literal) }

        /// Appends a text exactly as it is.
        public mutating func appendInterpolation(_ value: String) { append(value) }

        /// Appends an integer as `String(value)` writes it: its decimal digits written straight
        /// into the bytes when it fits in 64 bits (no `String` made for it), otherwise through `String`.
        public mutating func appendInterpolation<T: BinaryInteger>(_ value: T) {
            guard let v = Int64(exactly: value) else { append(String(value)); return }
            if v < 0 { bytes.append(UInt8(ascii: "-")) }
            appendDigits(v.magnitude)
        }

        /// Appends the decimal digits of `n` (at least one), written backwards into 24 bytes of
        /// the stack (`UInt64.max` has 20 digits) and copied once.
        private mutating func appendDigits(_ n: UInt64) {
            var room: (UInt64, UInt64, UInt64) = (0, 0, 0)
            withUnsafeMutableBytes(of: &room) { room in
                var rest = n
                var i = room.count
                repeat {
                    i -= 1
                    room[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                } while rest > 0
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: room[i...]))
            }
        }

        /// Appends each text in double quotes, separated by `separator` (the names of
        /// `list.map { "\"\($0)\"" }.joined(separator:)`).
        public mutating func appendInterpolation(quoted list: [String], separator: String) {
            for (i, item) in list.enumerated() {
                if i > 0 { append(separator) }
                bytes.append(UInt8(ascii: "\""))
                append(item)
                bytes.append(UInt8(ascii: "\""))
            }
        }

        /// Copies a text's UTF-8 bytes (one copy of the contiguous bytes of a native string).
        private mutating func append(_ s: String) {
            if s.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
                bytes.append(contentsOf: s.utf8)
            }
        }
    }
}
