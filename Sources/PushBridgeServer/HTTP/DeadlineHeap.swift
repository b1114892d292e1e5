/// Actions due at given times, earliest first: a binary min-heap of `(due, id)` with the
/// actions by id. A cancelled action leaves its heap entry behind; it is dropped when it
/// reaches the front, or with every other cancelled one when they outnumber the live entries
/// (so a heap whose actions are nearly all cancelled early, as deadlines are, stays small).
///
/// A value type with no lock: its owner confines it to one thread (an ``EventLoop``'s timers)
/// or keeps it in a `Mutex` (``TimerThread``).
struct DeadlineHeap {
    /// What runs when an entry is due.
    typealias Action = @Sendable () -> Void

    private var heap: [(due: ContinuousClock.Instant, id: UInt64)] = []
    private var actions: [UInt64: Wrapped] = [:]

    /// An action as the heap keeps it. A function value stored straight in a generic
    /// container (the dictionary, an array, an optional) is converted to the container's
    /// generic representation on the way in and back on the way out, each a new closure
    /// context: two allocations per timer. In a struct it is stored as it is.
    struct Wrapped {
        /// The action.
        let run: Action
    }
    private var nextId: UInt64 = 0

    /// No action is waiting.
    var isEmpty: Bool { actions.isEmpty }

    /// Adds `action`, due at `due`; returns its id for ``cancel(_:)``.
    mutating func add(_ due: ContinuousClock.Instant, _ action: @escaping Action) -> UInt64 {
        nextId += 1
        actions[nextId] = Wrapped(run: action)
        heap.append((due, nextId))
        siftUp(heap.count - 1)
        return nextId
    }

    /// Removes the action `id` (nothing if it already ran or was cancelled).
    mutating func cancel(_ id: UInt64) {
        guard actions.removeValue(forKey: id) != nil else { return }
        if heap.count > 64 && heap.count > 2 * actions.count { compact() }
    }

    /// The earliest due time of an action still waiting (cancelled fronts are dropped).
    mutating func nextDue() -> ContinuousClock.Instant? {
        while let front = heap.first {
            if actions[front.id] != nil { return front.due }
            popFront()
        }
        return nil
    }

    /// Removes and returns the actions due at `now`, earliest first.
    mutating func takeDue(_ now: ContinuousClock.Instant) -> [Action] {
        let due = takeDueApart(now)
        guard let first = due.first else { return [] }
        return [first.run] + due.rest.map(\.run)
    }

    /// The actions due at `now`, as ``takeDue(_:)`` takes them (all at once), the earliest
    /// apart: a loop turn usually finds one due, which then needs no array (an event loop
    /// runs its timers every turn: an array each time was an allocation per turn that ran one).
    mutating func takeDueApart(_ now: ContinuousClock.Instant) -> DueActions {
        var due = DueActions()
        while let front = heap.first {
            if let action = actions[front.id] {
                guard front.due <= now else { break }
                actions[front.id] = nil
                if due.first == nil { due.first = action } else { due.rest.append(action) }
            }
            popFront()
        }
        return due
    }

    /// Actions taken from the heap, earliest first: ``first``, then ``rest``.
    struct DueActions {
        /// The earliest, or nil when none was due.
        var first: Wrapped?
        /// The others, in order (empty, with no storage, when one or none was due).
        var rest: [Wrapped] = []

        /// Runs them, earliest first.
        func run() {
            first?.run()
            for action in rest { action.run() }
        }
    }

    /// Removes and returns every waiting action with its due time.
    mutating func takeAll() -> [(due: ContinuousClock.Instant, action: Action)] {
        let all = heap.compactMap { entry in actions[entry.id].map { (entry.due, $0.run) } }
        heap = []
        actions = [:]
        return all
    }

    /// Drops every cancelled entry; a sorted array is a valid min-heap.
    private mutating func compact() {
        heap = heap.filter { actions[$0.id] != nil }.sorted { $0.due < $1.due }
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popFront() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count && heap[right].due < heap[smallest].due { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
