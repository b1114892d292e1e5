import CAllocationCounter

/// What the counting allocator counted over one window, every thread's share included.
struct AllocationCount {
    /// Allocation calls (malloc, calloc, realloc, the aligned ones) on every counted thread.
    var allocations: UInt64
    /// Bytes those calls asked for.
    var bytes: UInt64
    /// `free` calls.
    var frees: UInt64
    /// Allocations by thread name (threads of one name summed), most first.
    var byThread: [(name: String, allocations: UInt64)]

    /// Counts everything `body` makes every counted thread allocate (the bench's own excluded
    /// threads aside), starting from zero.
    static func measure<T>(_ body: () async throws -> T) async rethrows -> (T, AllocationCount) {
        pb_alloc_reset()
        pb_alloc_counting(1)
        let value = try await body()
        pb_alloc_counting(0)
        return (value, current())
    }

    /// The counts since the last reset.
    static func current() -> AllocationCount {
        var names: [String: UInt64] = [:]
        for index in 0..<pb_alloc_thread_count() {
            var name = [CChar](repeating: 0, count: 16)
            let count = pb_alloc_thread(Int32(index), &name)
            guard count > 0 else { continue }
            let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            names[text.isEmpty ? "(unnamed)" : text, default: 0] += count
        }
        return AllocationCount(allocations: pb_alloc_total(), bytes: pb_alloc_bytes(), frees: pb_alloc_frees(),
                               byThread: names.sorted { $0.value > $1.value }.map { ($0.key, $0.value) })
    }

    /// Marks the calling thread as the bench's own: nothing it allocates is counted.
    static func excludeThisThread() { pb_alloc_exclude_this_thread() }
}
