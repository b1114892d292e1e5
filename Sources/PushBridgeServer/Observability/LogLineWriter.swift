/// Writes a logfmt line's bytes into the memory measured for it, through a cursor of its own:
/// a bare value or a key copied whole, a quoted ASCII value escaped in one loop (issue 31: each
/// byte handed through a closure that captured the cursor cost an exclusivity check).
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

    /// Writes ASCII `text` quoted: `"text"` with `\"`, `\\`, `\n`, `\r`, `\t` and `\u00XX` for
    /// other controls and DEL, as ``LogLineEncoder/logfmtValue(_:)`` writes ASCII text.
    mutating func putQuotedASCII(_ text: String) {
        put(UInt8(ascii: "\""))
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(UInt8(ascii: "\\")); put(b)
            case 0x0A: put(UInt8(ascii: "\\")); put(UInt8(ascii: "n"))
            case 0x0D: put(UInt8(ascii: "\\")); put(UInt8(ascii: "r"))
            case 0x09: put(UInt8(ascii: "\\")); put(UInt8(ascii: "t"))
            case 0x00..<0x20, 0x7F:
                put(UInt8(ascii: "\\")); put(UInt8(ascii: "u")); put(UInt8(ascii: "0")); put(UInt8(ascii: "0"))
                put(Self.hexDigit(b >> 4)); put(Self.hexDigit(b & 0x0F))
            default: put(b)
            }
        }
        put(UInt8(ascii: "\""))
    }

    /// How many bytes ``putQuotedASCII(_:)`` writes for `text`.
    static func quotedASCIILength(_ text: String) -> Int {
        var n = 2
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09: n += 2
            case 0x00..<0x20, 0x7F: n += 6
            default: n += 1
            }
        }
        return n
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
