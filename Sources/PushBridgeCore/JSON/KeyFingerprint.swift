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

    private init(bits: UInt64) { self.bits = bits }

    /// The fingerprint of a key's UTF-8 bytes.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var high: UInt8 = 0
        for b in bytes { high |= b }
        guard high < 0x80 else { self = .unknown; return }
        var packed = UInt64(min(bytes.count, 0xFFFF)) << 48
        for i in 0..<min(bytes.count, 6) { packed |= UInt64(bytes[i]) << (8 * UInt64(i)) }
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

    /// The fingerprint of a key.
    init(_ key: String) {
        self = key.utf8.withContiguousStorageIfAvailable { KeyFingerprint($0) } ?? .unknown
    }

    /// False only when the two keys certainly differ.
    func mayEqual(_ other: KeyFingerprint) -> Bool {
        bits == other.bits || bits == Self.unknown.bits || other.bits == Self.unknown.bits
    }
}
