#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The `String`s of recent sentences that recur from request to request (a segment's caveat,
/// the fan-out caveat), kept so that the next request with the same bytes shares the text
/// instead of making it again: a 270-byte caveat cost about 1,400 instructions to make (its
/// UTF-8 check, its allocation, and later its release), against about 150 to find it here
/// (issue 31, branch `translate6`).
///
/// Bounded: ``slotCount`` slots of at most ``longest`` bytes each, one slot per hash of the
/// bytes, the newest sentence replacing the one held. A slot's text is handed out only when its
/// bytes are the sentence's, compared in full, so a caller gets exactly the text it would have
/// made. Shared by every thread through one lock, held only to read or replace a slot.
enum SentenceCache {
    /// How many sentences are kept.
    static let slotCount = 32
    /// The longest sentence kept, in bytes (a longer one is made each time).
    static let longest = 1024

    /// The slots, by the top bits of their sentence's hash.
    private static let slots = Mutex<[String?]>(Array(repeating: nil, count: slotCount))

    /// The text of a sentence's UTF-8 bytes (valid UTF-8, as ``MessageText/string(_:)``
    /// requires): the held one when the same bytes were made before, otherwise made and held.
    static func text(_ bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.count <= longest else { return MessageText.string(bytes) }
        let slot = Int(truncatingIfNeeded: hash(bytes) >> 59) & (slotCount - 1)
        if let held = slots.withLock({ $0[slot] }), sameBytes(held, bytes) { return held }
        let made = MessageText.string(bytes)
        slots.withLock { $0[slot] = made }
        return made
    }

    /// A mix of the bytes that only picks the slot (the full compare decides): the words' sum
    /// and exclusive or, two operations a word (a multiply per word cost about 480 instructions
    /// per 270-byte caveat), the last word read overlapping, then mixed once.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let n = bytes.count
        var sum = UInt64(truncatingIfNeeded: n)
        var xor: UInt64 = 0
        if let base = bytes.baseAddress, n >= 8 {
            var i = 0
            while i + 8 <= n {
                let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                sum &+= w
                xor ^= w
                i += 8
            }
            xor ^= base.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) &* 0x9E37_79B9_7F4A_7C15
        } else {
            for b in bytes { sum = sum << 8 | UInt64(b) }
        }
        let h = (sum ^ (xor >> 1 | xor << 63)) &* 0x9E37_79B9_7F4A_7C15
        return h ^ (h >> 29)
    }

    /// True when the text's UTF-8 bytes are exactly these (`memcmp`: a byte loop over a
    /// 270-byte caveat would cost most of what the cache saves).
    static func sameBytes(_ text: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { held in
            guard held.count == bytes.count else { return false }
            guard let a = held.baseAddress, let b = bytes.baseAddress else { return true }
            return memcmp(a, b, held.count) == 0
        } ?? false
    }
}
