/// A `String` of at most 15 ASCII bytes made straight from its bytes (issue 31 item 1, branch
/// `spans`). Swift keeps such a string in the two words of the `String` value itself (a "small"
/// string: the bytes in order, then a last byte of flags and count), and `String(decoding:)`
/// reaches that form only after its UTF-8 check and a byte-by-byte copy: about 115 instructions
/// a string, where these words take under 20. Most of a body's keys, values and number literals
/// are this short.
///
/// The layout is the standard library's, not a public promise: ``layoutHolds`` compares the
/// words made here with those of `String(decoding:)` for every length once per process, and
/// the parser makes its strings the usual way when they differ.
enum SmallASCIIString {
    /// The most bytes a small string holds.
    static let capacity = 15

    /// True when this process's `String` holds a small ASCII string as ``words(_:count:readable:)``
    /// makes it: every length 0–15, compared bit for bit with `String(decoding:)`'s.
    static let layoutHolds: Bool = {
        #if _endian(little) && _pointerBitWidth(_64)
        guard MemoryLayout<String>.size == 16 else { return false }
        let sample = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        return sample.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return false }
            for n in 0...capacity {
                let made = String(decoding: UnsafeBufferPointer(start: base + 1, count: n), as: UTF8.self)
                let expected = unsafeBitCast(made, to: (UInt64, UInt64).self)
                let mine = words(base + 1, count: n, readable: n)
                let loaded = words(base + 1, count: n, readable: all.count - 1)
                guard expected == mine, expected == loaded else { return false }
            }
            return true
        }
        #else
        return false
        #endif
    }()

    /// The string of `count` (at most ``capacity``) ASCII bytes at `base`, of which `readable`
    /// bytes (at least `count`) may be read. Only when ``layoutHolds``.
    @inline(__always)
    static func make(_ base: UnsafePointer<UInt8>, count: Int, readable: Int) -> String {
        string(words(base, count: count, readable: readable))
    }

    /// The text of bytes not known to be ASCII, as a small string when they are ASCII and at
    /// most ``capacity`` long (and ``layoutHolds``); nil otherwise (then `String(decoding:)`).
    static func string(ifASCII bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count <= capacity, layoutHolds, let base = bytes.baseAddress else { return nil }
        let w = words(base, count: bytes.count, readable: bytes.count)
        guard (w.0 | w.1 & 0x00FF_FFFF_FFFF_FFFF) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return string(w)
    }

    /// The string of two words ``words(_:count:readable:)`` made. Only when ``layoutHolds``.
    @inline(__always)
    static func string(_ words: (UInt64, UInt64)) -> String { unsafeBitCast(words, to: String.self) }

    /// A small ASCII string's two words: the bytes in memory order, then in the last byte the
    /// flags (immortal, ASCII, small: `0xE0`) and the count.
    @inline(__always)
    static func words(_ base: UnsafePointer<UInt8>, count n: Int, readable: Int) -> (UInt64, UInt64) {
        let raw = UnsafeRawPointer(base)
        var low: UInt64 = 0
        var high: UInt64 = 0
        if n >= 8 {
            low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            // Bytes n-8..<n, shifted down so that bytes 8..<n come first.
            high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)) >> (UInt64(16 - n) << 3)
        } else if readable >= 8 {
            low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)) & ((1 << (UInt64(n) << 3)) &- 1)
        } else {
            for i in stride(from: n - 1, through: 0, by: -1) { low = low << 8 | UInt64(base[i]) }
        }
        return (low, high | UInt64(0xE0 | n) << 56)
    }
}
