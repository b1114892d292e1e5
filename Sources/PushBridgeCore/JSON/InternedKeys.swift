/// Object keys known in advance, each kept as one `String` made once: the parser gives a key it
/// finds here as that `String` instead of making a new one from the body's bytes (issue 31
/// item 1: a request's keys are mostly the dialect's own field names, and each new `String`
/// was a UTF-8 check and, past 15 bytes, an allocation the tree then had to free).
///
/// Only ASCII keys are held, and a key is found only when its bytes are exactly a held key's
/// bytes, so the `String` given is the one the bytes would have made.
public struct InternedKeys: Sendable {
    /// One held key: its fingerprint, its bytes and its text.
    private struct Slot: Sendable {
        let bits: UInt64
        let bytes: [UInt8]
        let key: String
    }

    /// An open-addressed table, a power of two long, at most a quarter full.
    private let slots: [Slot?]
    /// `slots.count - 1`.
    private let mask: Int
    /// The shift that takes a hash's top bits as a slot index.
    private let shift: UInt64

    /// A table of `keys`; keys that are not ASCII, or longer than 0xFFFF bytes, are left out.
    public init(_ keys: some Sequence<String>) {
        var unique: [[UInt8]] = []
        var seen = Set<[UInt8]>()
        for key in keys {
            let bytes = Array(key.utf8)
            guard bytes.count <= 0xFFFF, bytes.allSatisfy({ $0 < 0x80 }), seen.insert(bytes).inserted else { continue }
            unique.append(bytes)
        }
        var size = 16
        var bitsOfSize: UInt64 = 4
        while size < unique.count * 4 { size *= 2; bitsOfSize += 1 }
        var table = [Slot?](repeating: nil, count: size)
        shift = 64 - bitsOfSize
        mask = size - 1
        for bytes in unique {
            let bits = bytes.withUnsafeBufferPointer { KeyFingerprint(ascii: $0).bits }
            var i = Self.index(bits, shift: shift)
            while table[i] != nil { i = (i + 1) & mask }
            table[i] = Slot(bits: bits, bytes: bytes, key: String(decoding: bytes, as: UTF8.self))
        }
        slots = table
    }

    private static func index(_ bits: UInt64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The held key whose bytes are exactly `bytes` (ASCII, fingerprinted as `fingerprint`), or nil.
    func key(_ bytes: UnsafeBufferPointer<UInt8>, fingerprint: KeyFingerprint) -> String? {
        var i = Self.index(fingerprint.bits, shift: shift)
        while let slot = slots[i] {
            // The fingerprint holds the length and the first six bytes: only the rest is compared.
            if slot.bits == fingerprint.bits, bytes.count <= 6 || Self.same(slot.bytes, bytes) { return slot.key }
            i = (i + 1) & mask
        }
        return nil
    }

    /// True when the two hold the same bytes (an index loop: the generic `elementsEqual`
    /// allocates in an unoptimized build, which the allocation guard counts).
    private static func same(_ held: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard held.count == bytes.count else { return false }
        return held.withUnsafeBufferPointer { p in
            for i in 0..<p.count where p[i] != bytes[i] { return false }
            return true
        }
    }

    /// How many keys the table holds.
    public var count: Int { slots.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
}
