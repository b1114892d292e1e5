/// The grant times of one app's recent and reserved sends, ascending: an array with a head
/// index, so dropping the expired front is a binary search and an index move (the storage is
/// compacted once the dropped part is at least half of it), and counting the sends still
/// waiting is a binary search. Every operation is O(log n) amortized, where the plain array
/// it replaces cost O(n) per reservation (thousands of entries at high send rates).
struct PacerSlots: Sendable, Equatable {
    private var storage: [Int64] = []
    private var head = 0

    /// An empty set of slots.
    init() {}

    /// Slots held.
    var count: Int { storage.count - head }

    /// The latest slot, if any.
    var last: Int64? { head < storage.count ? storage[storage.count - 1] : nil }

    /// The slot at `index` (0 is the earliest held).
    subscript(index: Int) -> Int64 { storage[head + index] }

    /// The index of the first slot later than `time` (`count` when there is none).
    func firstIndex(after time: Int64) -> Int {
        var low = head, high = storage.count
        while low < high {
            let mid = low + (high - low) / 2
            if storage[mid] <= time { low = mid + 1 } else { high = mid }
        }
        return low - head
    }

    /// Slots later than `time`.
    func count(after time: Int64) -> Int { count - firstIndex(after: time) }

    /// Forgets every slot at or before `time`.
    mutating func drop(through time: Int64) {
        head += firstIndex(after: time)
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Adds a slot no earlier than ``last``.
    mutating func append(_ time: Int64) {
        precondition(time >= (last ?? time), "pacer slots must stay ascending")
        storage.append(time)
    }

    /// The slots held, earliest first.
    var all: [Int64] { Array(storage[head...]) }
}
