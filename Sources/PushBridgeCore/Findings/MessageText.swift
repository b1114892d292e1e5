/// A finding's or an error's sentence built as UTF-8 bytes: `MessageText("… \(name) …").text`
/// is the same text as the `String` interpolation `"… \(name) …"`, byte for byte, without
/// `String`'s append (which checks each piece's join for grapheme breaks and grows the text
/// piece by piece: about 400 instructions a piece, a tenth of a OneSignal start's translation
/// in issue 31's profile). The pieces are copied into bytes the value holds itself (see
/// ``Pieces``), then made a `String` once.
public struct MessageText: ExpressibleByStringInterpolation, Sendable {
    /// The sentence.
    public let text: String

    /// A sentence without interpolations.
    public init(stringLiteral value: String) { text = value }

    /// A sentence from its interpolated pieces: the one `String` made from their bytes
    /// (see ``string(_:)``).
    public init(stringInterpolation pieces: Pieces) {
        text = pieces.withBytes { Self.string($0) }
    }

    /// The pieces of a ``MessageText`` as they are appended: text and integers, as `String`
    /// interpolation writes them. The bytes are kept in the value itself (512 bytes, on the
    /// stack while the sentence is built: issue 31, branch `translate`) and move to an array
    /// only for a longer sentence, so a sentence costs one allocation, its `String`'s.
    public struct Pieces: StringInterpolationProtocol, Sendable {
        /// Eight words.
        typealias Words = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
        /// The room of ``inline``.
        static let inlineCapacity = 512
        /// The bytes while they fit: ``inlineCapacity`` bytes.
        var inline: (Words, Words, Words, Words, Words, Words, Words, Words)
        /// How many bytes there are.
        var count = 0
        /// All the bytes, once they no longer fit ``inline``.
        var spilled: [UInt8]?

        /// An empty sentence (the capacities are not needed: the room is fixed until it spills).
        public init(literalCapacity: Int, interpolationCount: Int) {
            let zero: Words = (0, 0, 0, 0, 0, 0, 0, 0)
            inline = (zero, zero, zero, zero, zero, zero, zero, zero)
        }

        /// Calls `body` with the sentence's bytes: the inline ones, or the spilled array.
        @inline(__always)
        func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            if let spilled { return spilled.withUnsafeBytes(body) }
            var inline = self.inline
            let count = self.count
            return withUnsafeBytes(of: &inline) { body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }

        /// Appends a literal piece.
        public mutating func appendLiteral(_ literal: String) { append(literal) }

        /// Appends a text exactly as it is.
        public mutating func appendInterpolation(_ value: String) { append(value) }

        /// Appends an integer as `String(value)` writes it: its decimal digits written straight
        /// into the bytes when it fits in 64 bits (no `String` made for it), otherwise through `String`.
        public mutating func appendInterpolation<T: BinaryInteger>(_ value: T) {
            guard let v = Int64(exactly: value) else { append(String(value)); return }
            if v < 0 { appendByte(UInt8(ascii: "-")) }
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
                append(bytes: UnsafeRawBufferPointer(rebasing: room[i...]))
            }
        }

        /// Appends each text in double quotes, separated by `separator` (the names of
        /// `list.map { "\"\($0)\"" }.joined(separator:)`).
        public mutating func appendInterpolation(quoted list: [String], separator: String) {
            for (i, item) in list.enumerated() {
                if i > 0 { append(separator) }
                appendByte(UInt8(ascii: "\""))
                append(item)
                appendByte(UInt8(ascii: "\""))
            }
        }

        /// Copies a text's UTF-8 bytes (one copy of the contiguous bytes of a native string).
        private mutating func append(_ s: String) {
            if s.utf8.withContiguousStorageIfAvailable({ append(bytes: UnsafeRawBufferPointer($0)) }) == nil {
                let bytes = Array(s.utf8)
                bytes.withUnsafeBytes { append(bytes: $0) }
            }
        }

        /// Appends one byte.
        private mutating func appendByte(_ byte: UInt8) {
            var b = byte
            withUnsafeBytes(of: &b) { append(bytes: $0) }
        }

        /// Appends bytes: into ``inline`` while they fit, otherwise into ``spilled`` (which
        /// takes the inline bytes first).
        private mutating func append(bytes: UnsafeRawBufferPointer) {
            let n = bytes.count
            guard n > 0 else { return }
            if spilled == nil, count + n <= Self.inlineCapacity {
                let at = count
                withUnsafeMutableBytes(of: &inline) { room in
                    UnsafeMutableRawBufferPointer(rebasing: room[at..<(at + n)]).copyMemory(from: bytes)
                }
                count += n
                return
            }
            if spilled == nil {
                var all: [UInt8] = []
                all.reserveCapacity(2 * (count + n))
                let held = count
                withUnsafeBytes(of: &inline) { all.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<held])) }
                spilled = all
            }
            spilled!.append(contentsOf: bytes)
            count += n
        }
    }
}
