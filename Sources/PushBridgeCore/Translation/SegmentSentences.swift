import Synchronization

/// The sentences said about one segment (``SegmentMapping``'s, and the fan-out caveat of a start
/// aimed at one segment), kept by what they are made from (the outcome, whether the app has a
/// segment map, the provider's words, the segment's name, the id it maps to, a number), so a
/// request naming a segment seen before takes the sentence without building its bytes:
/// ``RecurringText`` built and hashed a 270-byte caveat before its cache answered (about 1,000
/// instructions a sentence, two per OneSignal start; issue 31, branch `translate7`).
///
/// Bounded: ``slotCount`` slots, one per hash of the name, provider and outcome, the newest
/// sentence replacing the one held; names or ids longer than ``longestName`` bytes are not kept.
/// A slot's sentence is handed out only when every input is the same, compared as UTF-8 bytes
/// (not by `String` equality, which holds canonically equal names such as `é` and `e` + U+0301
/// to be the same), so a caller gets exactly the sentence it would have made. Shared by every
/// thread through one lock, held only to compare or replace a slot.
enum SegmentSentences {
    /// How many sentences are kept.
    static let slotCount = 32
    /// The longest name or id kept, in bytes (a sentence about a longer one is made each time).
    static let longestName = 256

    /// What ``SegmentMapping`` did with the name: which sentence it says.
    enum Outcome: UInt8 {
        /// Renamed through the segment map.
        case renamed
        /// Rejected (`unmapped_segments` is reject).
        case rejected
        /// Sent as is, with a caveat.
        case forwarded
        /// The fan-out caveat of a start aimed at this one segment (the number is the cap).
        case fanOutCaveat
    }

    /// One kept sentence and everything it was made from: a class, so reading a slot retains
    /// one object, not its five strings (about 280 instructions a lookup).
    final class Entry: Sendable {
        /// Which sentence it is.
        let outcome: Outcome
        /// Whether the app had a segment map (the reason an unmapped name gives).
        let mapConfigured: Bool
        /// The provider's words for the name ("OneSignal segment", "Pushwoosh filter", …).
        let provider: String
        /// The segment's name.
        let name: String
        /// The id it maps to ("" unless renamed).
        let id: String
        /// The number written into the sentence (0 when none).
        let number: Int
        /// The sentence made from them.
        let text: String

        /// An entry of these inputs and their sentence.
        init(outcome: Outcome, mapConfigured: Bool, provider: String, name: String, id: String, number: Int, text: String) {
            (self.outcome, self.mapConfigured, self.provider, self.name, self.id, self.number, self.text) =
                (outcome, mapConfigured, provider, name, id, number, text)
        }
    }

    /// The slots, by the top bits of their key's hash.
    private static let slots = Mutex<[Entry?]>(Array(repeating: nil, count: slotCount))

    /// The sentence for these inputs: the held one when it was made from exactly the same
    /// inputs, otherwise `make()`'s, held for the next request.
    static func text(_ outcome: Outcome, mapConfigured: Bool, provider: String, name: String, id: String,
                     number: Int = 0, make: () -> String) -> String {
        guard name.utf8.count <= longestName, id.utf8.count <= longestName else { return make() }
        let slot = slot(outcome, provider: provider, name: name)
        let held: String? = slots.withLock { slots in
            guard let e = slots[slot], e.outcome == outcome, e.mapConfigured == mapConfigured, e.number == number,
                  sameBytes(e.name, name), sameBytes(e.id, id), sameBytes(e.provider, provider) else { return nil }
            return e.text
        }
        if let held { return held }
        let made = make()
        let entry = Entry(outcome: outcome, mapConfigured: mapConfigured, provider: provider, name: name, id: id, number: number, text: made)
        slots.withLock { $0[slot] = entry }
        return made
    }

    /// The slot of a key: the name's bytes hashed as ``SentenceCache`` hashes a sentence, mixed
    /// with the provider's length and the outcome (so one name's sentences for two providers or
    /// outcomes do not take each other's slot).
    static func slot(_ outcome: Outcome, provider: String, name: String) -> Int {
        var name = name
        let h = name.withUTF8 { SentenceCache.hash(UnsafeRawBufferPointer($0)) }
        let mixed = (h ^ UInt64(truncatingIfNeeded: provider.utf8.count << 2 | Int(outcome.rawValue))) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 59) & (slotCount - 1)
    }

    /// True when the two texts' UTF-8 bytes are the same (compared as ``SentenceCache`` compares).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        b.utf8.withContiguousStorageIfAvailable { SentenceCache.sameBytes(a, UnsafeRawBufferPointer($0)) }
            ?? a.utf8.elementsEqual(b.utf8)
    }
}
