/// Object keys known in advance, each kept as one `String` made once: the parser gives a key it
/// finds here as that `String` instead of making a new one from the body's bytes (issue 31
/// item 1: a request's keys are mostly the dialect's own field names, and each new `String`
/// was a UTF-8 check and, past 15 bytes, an allocation the tree then had to free).
///
/// Only ASCII keys are held, and a key is found only when its bytes are exactly a held key's
/// bytes, so the `String` given is the one the bytes would have made.
public struct InternedKeys: Sendable {
    /// An open-addressed table, a power of two long, at most a quarter full: each slot's key
    /// fingerprint bits (0 for an empty slot: a held key is never empty, so its bits never are)…
    private let bits: [UInt64]
    /// …and its key (empty for an empty slot). Flat arrays, so a lookup copies no slot.
    private let keys: [String]
    /// `bits.count - 1`.
    private let mask: Int
    /// The shift that takes a hash's top bits as a slot index.
    private let shift: UInt64

    /// A table of `keys`; keys that are empty, not ASCII, or longer than 0xFFFF bytes are left out.
    /// Each held key is the `String` given (the first of equal ones): a key given as the same
    /// `String` a decoder asks for (a ``FieldKey``'s name) then compares equal to it by its bits,
    /// without reading its bytes (branch `spans`).
    public init(_ keys: some Sequence<String>) {
        var unique: [(bytes: [UInt8], key: String)] = []
        var seen = Set<[UInt8]>()
        for key in keys {
            let bytes = Array(key.utf8)
            guard !bytes.isEmpty, bytes.count <= 0xFFFF, bytes.allSatisfy({ $0 < 0x80 }), seen.insert(bytes).inserted else { continue }
            unique.append((bytes, key))
        }
        var size = 16
        var bitsOfSize: UInt64 = 4
        while size < unique.count * 4 { size *= 2; bitsOfSize += 1 }
        var bits = [UInt64](repeating: 0, count: size)
        var held = [String](repeating: "", count: size)
        shift = 64 - bitsOfSize
        mask = size - 1
        for (bytes, key) in unique {
            let fingerprint = bytes.withUnsafeBufferPointer { KeyFingerprint(ascii: $0).bits }
            var i = Self.index(fingerprint, shift: shift)
            while bits[i] != 0 { i = (i + 1) & mask }
            bits[i] = fingerprint
            held[i] = key
        }
        self.bits = bits
        self.keys = held
    }

    private static func index(_ bits: UInt64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The held key whose bytes are exactly `bytes` (ASCII, fingerprinted as `fingerprint`), or nil.
    func key(_ bytes: UnsafeBufferPointer<UInt8>, fingerprint: KeyFingerprint) -> String? {
        bits.withUnsafeBufferPointer { bits in
            var i = Self.index(fingerprint.bits, shift: shift)
            while bits[i] != 0 {
                // The fingerprint holds the length and the first six bytes: only the rest is compared.
                if bits[i] == fingerprint.bits, bytes.count <= 6 || Self.same(keys[i], bytes) { return keys[i] }
                i = (i + 1) & mask
            }
            return nil
        }
    }

    /// True when a held key's bytes are `bytes` (an index loop: the generic `elementsEqual`
    /// allocates in an unoptimized build, which the allocation guard counts).
    private static func same(_ held: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        held.utf8.withContiguousStorageIfAvailable { p in
            guard p.count == bytes.count else { return false }
            for i in 0..<p.count where p[i] != bytes[i] { return false }
            return true
        } ?? false
    }

    /// How many keys the table holds.
    public var count: Int { bits.reduce(0) { $0 + ($1 == 0 ? 0 : 1) } }
}
