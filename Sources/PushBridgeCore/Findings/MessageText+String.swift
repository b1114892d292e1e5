extension MessageText {
    /// The `String` of a sentence's bytes, known to be valid UTF-8 (every piece came from a
    /// `String` or is ASCII digits), with the same text as `String(decoding: bytes, as: UTF8.self)`.
    ///
    /// `String(decoding:)` checks an all-ASCII text a word at a time but any other text byte by
    /// byte, from its first byte: the segment caveat (270 bytes, one "—" 200 bytes in) paid that
    /// check over its whole length. Here the ASCII prefix is found 32 bytes at a time and made
    /// the `String` at the whole sentence's capacity (its check is the word-at-a-time one), and
    /// only the rest, from the first non-ASCII byte, is checked byte by byte (as its own `String`)
    /// and appended in place. The split costs about as much as checking 150 bytes one at a time
    /// (the rest's `String` and the append), and the search reads a long all-ASCII sentence once
    /// more: so only a text longer than ``splitPrefix`` bytes is searched, and only a prefix of at
    /// least that many bytes is split off (issue 31, branch `translate4`: at 64 bytes Pushwoosh
    /// and BuzzKit sentences got slower).
    @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        bytes.count > splitPrefix ? longString(bytes) : String(decoding: bytes, as: UTF8.self)
    }

    /// ``string(_:)`` of a text longer than ``splitPrefix`` bytes.
    @inline(never)
    static func longString(_ bytes: UnsafeRawBufferPointer) -> String {
        let k = firstNonASCII(bytes)
        guard k >= splitPrefix, k < bytes.count, let base = bytes.baseAddress else { return String(decoding: bytes, as: UTF8.self) }
        var text = String(unsafeUninitializedCapacity: bytes.count) { room in
            UnsafeMutableRawPointer(room.baseAddress!).copyMemory(from: base, byteCount: k)
            return k
        }
        text.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[k...]), as: UTF8.self))
        return text
    }

    /// The shortest ASCII prefix that is split off, and the longest text made at once without
    /// the search (below it, the byte-by-byte check of the prefix costs less than the split).
    static let splitPrefix = 160

    /// The offset of the first byte ≥ 0x80 (the count when there is none), read 32 bytes at a
    /// time, then a word at a time (a long all-ASCII sentence is read twice, here and by
    /// `String(decoding:)`'s own check: the first read is kept short).
    static func firstNonASCII(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let raw = bytes.baseAddress else { return 0 }
        let n = bytes.count
        let highs: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i + 32 <= n {
            let any = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
                | raw.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
            if any & highs != 0 { break }
            i += 32
        }
        while i + 8 <= n {
            let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) & highs
            if high != 0 { return i + high.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < n, bytes[i] < 0x80 { i += 1 }
        return i
    }
}
