/// A first-in, first-out list that keeps at most `capacity` elements: appending past it
/// forgets the oldest, and counts how many were forgotten.
struct BoundedFIFO<Element> {
    /// The most elements kept (at least 1).
    let capacity: Int
    private var storage: [Element] = []
    private var head = 0
    /// How many elements were forgotten to stay within `capacity`.
    private(set) var forgotten = 0

    /// An empty list keeping at most `capacity` elements.
    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The kept elements, oldest first.
    var elements: ArraySlice<Element> { storage[head...] }

    /// How many are kept.
    var count: Int { storage.count - head }

    /// Appends `element`; returns the one forgotten to make room, if any.
    @discardableResult
    mutating func append(_ element: Element) -> Element? {
        storage.append(element)
        guard count > capacity else { return nil }
        let dropped = storage[head]
        head += 1
        forgotten += 1
        if head > storage.count / 2 {
            storage.removeFirst(head)
            head = 0
        }
        return dropped
    }
}
