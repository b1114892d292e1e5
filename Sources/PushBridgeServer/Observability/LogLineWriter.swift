/// Writes a logfmt line's bytes into the memory measured for it, through a cursor of its own:
/// a bare value or a key copied whole, a quoted value escaped from its UTF-8 bytes in one loop
/// (issue 31: each byte handed through a closure that captured the cursor cost an exclusivity
/// check, and a value with a non-ASCII scalar was escaped into a string of scalars first).
struct LogLineWriter {
    private let out: UnsafeMutableBufferPointer<UInt8>
    /// The bytes written so far.
    private(set) var count = 0

    /// A writer at the start of `out`.
    init(_ out: UnsafeMutableBufferPointer<UInt8>) { self.out = out }

    /// Writes one byte.
    mutating func put(_ byte: UInt8) {
        precondition(count < out.count, "a log line longer than its measure")
        out[count] = byte
        count += 1
    }

    /// Writes `bytes` as they are.
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= out.count - count, "a log line longer than its measure")
        guard let from = bytes.baseAddress, let to = out.baseAddress, !bytes.isEmpty else { return }
        (to + count).update(from: from, count: bytes.count)
        count += bytes.count
    }

    /// Writes `text`'s UTF-8 bytes as they are.
    mutating func put(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ put($0) }) == nil {
            for byte in text.utf8 { put(byte) }
        }
    }

    /// Writes `text` quoted: `"text"` with `\"`, `\\`, `\n`, `\r`, `\t` and `\uXXXX` for
    /// other controls (C0, DEL, C1, U+2028, U+2029), as ``LogLineEncoder/logfmtValue(_:)``
    /// quotes it, from its UTF-8 bytes (no string of scalars made, issue 31).
    mutating func putQuoted(_ text: String) {
        put(UInt8(ascii: "\""))
        Self.withBytes(text) { bytes in
            var i = 0
            while i < bytes.count {
                let piece = Self.piece(bytes, at: i)
                switch piece.escape {
                case nil:
                    put(bytes[i])
                case .short(let letter)?:
                    put(UInt8(ascii: "\\"))
                    put(letter)
                case .unicode(let value)?:
                    put(UInt8(ascii: "\\"))
                    put(UInt8(ascii: "u"))
                    put(Self.hexDigit(UInt8(value >> 12)))
                    put(Self.hexDigit(UInt8(value >> 8 & 0x0F)))
                    put(Self.hexDigit(UInt8(value >> 4 & 0x0F)))
                    put(Self.hexDigit(UInt8(value & 0x0F)))
                }
                i += piece.length
            }
        }
        put(UInt8(ascii: "\""))
    }

    /// How many bytes ``putQuoted(_:)`` writes for `text`.
    static func quotedLength(_ text: String) -> Int {
        withBytes(text) { bytes in
            var n = 2, i = 0
            while i < bytes.count {
                let piece = Self.piece(bytes, at: i)
                switch piece.escape {
                case nil: n += 1
                case .short?: n += 2
                case .unicode?: n += 6
                }
                i += piece.length
            }
            return n
        }
    }

    /// Whether logfmt writes `text` bare: not empty, and no space, `=`, quote, backslash or
    /// control (what ``LogLineEncoder/logfmtValue(_:)`` leaves unquoted).
    static func isBare(_ text: String) -> Bool {
        withBytes(text) { bytes in
            guard !bytes.isEmpty else { return false }
            var i = 0
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "=") { return false }
                let piece = Self.piece(bytes, at: i)
                if piece.escape != nil { return false }
                i += piece.length
            }
            return true
        }
    }

    /// How a scalar is escaped: a backslash and a letter, or `\u` and four hex digits.
    private enum Escape {
        case short(UInt8)
        case unicode(UInt16)
    }

    /// The bytes at `i` that stand for one escape (1 for ASCII, 2 for a C1 control, 3 for
    /// U+2028 and U+2029) and that escape, or 1 and nil for a byte written as it is (any other
    /// byte of a scalar: a continuation byte is never one of those leads).
    @inline(__always)
    private static func piece(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (length: Int, escape: Escape?) {
        let b = bytes[i]
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): return (1, .short(b))
        case 0x0A: return (1, .short(UInt8(ascii: "n")))
        case 0x0D: return (1, .short(UInt8(ascii: "r")))
        case 0x09: return (1, .short(UInt8(ascii: "t")))
        case 0x00..<0x20, 0x7F: return (1, .unicode(UInt16(b)))
        case 0xC2 where i + 1 < bytes.count && (0x80...0x9F).contains(bytes[i + 1]):
            return (2, .unicode(UInt16(bytes[i + 1])))
        case 0xE2 where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
            return (3, .unicode(0x2028 + UInt16(bytes[i + 2] - 0xA8)))
        default: return (1, nil)
        }
    }

    /// `body` over `text`'s UTF-8 bytes.
    private static func withBytes<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        text.utf8.withContiguousStorageIfAvailable(body) ?? Array(text.utf8).withUnsafeBufferPointer(body)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
