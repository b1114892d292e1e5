#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// Whether the text's UTF-8 holds `byte`: one scan of the contiguous bytes of a native
    /// string (the generic `utf8.contains` walks the view through its index protocol, which
    /// the request path paid for every body string, key and path it checked), by `memchr`: the
    /// audit scans every text of every request for NUL this way (~2 KB a request, and a byte
    /// loop was ~2 % of `audit-bench`'s CPU samples).
    public func containsUTF8(_ byte: UInt8) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ UTF8Search.contains($0, byte) }) { return found }
        return utf8.contains(byte)
    }
}

extension Substring {
    /// ``Swift/String/containsUTF8(_:)`` of a slice.
    public func containsUTF8(_ byte: UInt8) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ UTF8Search.contains($0, byte) }) { return found }
        return utf8.contains(byte)
    }
}

extension String {
    /// `firstIndex(of: Character(UnicodeScalar(byte)))`, found by one scan of the bytes instead
    /// of a walk over the text's Characters (which the request path paid thousands of
    /// instructions for on every field name it split at a `.`).
    ///
    /// Only for `.` and `/`: ASCII characters no other scalar is canonically equivalent to, so
    /// the text holds the Character exactly where it holds the byte as a Character of its own.
    /// The byte is one when the bytes either side are ASCII (no combining mark, joiner or
    /// prepended scalar joins it to a neighbour); when they are not, the Characters decide.
    public func firstIndexOfStandalone(_ byte: UInt8) -> String.Index? {
        precondition(byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/"), "only for characters without canonical equivalents")
        let offset = utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            guard let i = bytes.firstIndex(of: byte) else { return -1 }
            if i > 0, bytes[i - 1] >= 0x80 { return nil }
            if i + 1 < bytes.count, bytes[i + 1] >= 0x80 { return nil }
            return i
        }
        switch offset {
        case .some(.some(-1)): return nil
        case .some(.some(let i)): return utf8.index(utf8.startIndex, offsetBy: i)
        default: return firstIndex(of: Character(UnicodeScalar(byte)))
        }
    }
}

/// The byte search behind ``Swift/String/containsUTF8(_:)``.
enum UTF8Search {
    /// Whether `bytes` holds `byte`, by `memchr`.
    @inline(__always)
    static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ byte: UInt8) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
        return memchr(base, Int32(byte), bytes.count) != nil
    }
}
