/// A summary of an object key's bytes (its length and first six bytes) that lets a lookup skip
/// the `String` comparison for keys that cannot be equal: two ASCII keys are equal exactly when
/// their bytes are, so different fingerprints of ASCII keys mean different keys. A key with a
/// byte ≥ 0x80 gets ``unknown``, which matches everything, because Swift compares strings by
/// canonical equivalence (`"\u{212A}"`, the Kelvin sign, equals `"K"`): then `==` decides, as
/// it always did.
struct KeyFingerprint: Equatable {
    /// The packed summary: length (up to 0xFFFF) in the top 16 bits, the first six bytes below.
    let bits: UInt64

    /// The fingerprint of a key with a non-ASCII byte: may equal any key.
    static let unknown = KeyFingerprint(bits: .max)

    /// Not made yet (a ``JSONMember`` not read by the parser): bits no key has, since an empty
    /// key's are 0 and any other key's hold its length.
    static let notMade = KeyFingerprint(bits: 1)

    private init(bits: UInt64) { self.bits = bits }

    /// The fingerprint of a key's UTF-8 bytes. The ASCII check and the first six bytes are
    /// read a word at a time (a `FieldReader` fingerprints every key it is asked for and every
    /// member of its object: issue 31's profile had this at about 130 instructions a key).
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        guard let base = bytes.baseAddress, n > 0 else { bits = 0; return }
        var high: UInt64 = 0
        var i = 0
        while i + 8 <= n {
            high |= UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            i += 8
        }
        while i < n {
            high |= UInt64(base[i])
            i += 1
        }
        guard high & 0x8080_8080_8080_8080 == 0 else { self = .unknown; return }
        var packed = UInt64(min(n, 0xFFFF)) << 48
        if n >= 8 {
            packed |= UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)) & 0xFFFF_FFFF_FFFF
        } else {
            for j in 0..<min(n, 6) { packed |= UInt64(base[j]) << (8 * UInt64(j)) }
        }
        bits = packed
    }

    /// The fingerprint of a key's UTF-8 bytes already known to be ASCII (the parser learns it
    /// while it finds the key's end): the same as ``init(_:)-(UnsafeBufferPointer<UInt8>)``
    /// without its scan.
    init(ascii bytes: UnsafeBufferPointer<UInt8>) {
        var packed = UInt64(min(bytes.count, 0xFFFF)) << 48
        for i in 0..<min(bytes.count, 6) { packed |= UInt64(bytes[i]) << (8 * UInt64(i)) }
        bits = packed
    }

    /// The fingerprint of an ASCII key of at most 15 bytes from its small string's first word
    /// (``SmallASCIIString/words(_:count:readable:)``: its bytes in order, zero past the key's
    /// end): the same as ``init(ascii:)``.
    init(smallASCIIWord word: UInt64, count: Int) {
        bits = UInt64(count) << 48 | word & 0xFFFF_FFFF_FFFF
    }

    /// The fingerprint of a key.
    init(_ key: String) {
        self = key.utf8.withContiguousStorageIfAvailable { KeyFingerprint($0) } ?? .unknown
    }

    /// One of 64 bits picked by the fingerprint, all of them for ``unknown`` (which may equal
    /// any key): a set of keys' bits holds every bit of a key that may be among them.
    var presenceBit: UInt64 {
        bits == Self.unknown.bits ? .max : 1 &<< ((bits &* 0x9E37_79B9_7F4A_7C15) &>> 58)
    }

    /// False only when the two keys certainly differ.
    func mayEqual(_ other: KeyFingerprint) -> Bool {
        bits == other.bits || bits == Self.unknown.bits || other.bits == Self.unknown.bits
    }
}
