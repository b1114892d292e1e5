import CAllocationCounter
import Foundation

/// How `alloc-count` measures: warm-up requests uncounted, then rounds of counted requests,
/// and the round with the fewest allocations (a round that met a periodic task, a WAL
/// checkpoint or a table's growth counts more; the steady request is the least).
struct Rounds {
    /// Requests before counting starts: the HTTP server's part of a request settles only after
    /// about 100 (see AllocationGuardTests.arguments).
    var warmUp = 200
    /// Counted rounds.
    var rounds = 5
    /// Requests per round.
    var requests = 40

    /// The fewest-allocations round of `work` (one request per call) and its counts per request.
    func measure(_ work: () async throws -> Void) async throws -> PerRequest {
        for _ in 0..<warmUp { try await work() }
        var best: AllocationCount?
        for _ in 0..<rounds {
            let (_, count) = try await AllocationCount.measure {
                for _ in 0..<requests { try await work() }
            }
            if best.map({ count.allocations < $0.allocations }) ?? true { best = count }
        }
        return PerRequest(best ?? AllocationCount.current(), requests: requests)
    }

    /// The same on the calling thread, synchronously (the bench's caller thread, which is
    /// excluded from the count itself).
    func measureBlocking(_ work: () throws -> Void) throws -> PerRequest {
        for _ in 0..<warmUp { try work() }
        var best: AllocationCount?
        for _ in 0..<rounds {
            pb_alloc_reset()
            pb_alloc_counting(1)
            do {
                for _ in 0..<requests { try work() }
            } catch {
                pb_alloc_counting(0)
                throw error
            }
            pb_alloc_counting(0)
            let count = AllocationCount.current()
            if best.map({ count.allocations < $0.allocations }) ?? true { best = count }
        }
        return PerRequest(best ?? AllocationCount.current(), requests: requests)
    }
}

/// One round's counts divided by its requests.
struct PerRequest {
    var allocations: Double
    var bytes: Double
    var frees: Double
    var byThread: [(name: String, allocations: Double)]

    init(_ count: AllocationCount, requests: Int) {
        let n = Double(max(requests, 1))
        allocations = Double(count.allocations) / n
        bytes = Double(count.bytes) / n
        frees = Double(count.frees) / n
        byThread = count.byThread.map { ($0.name, Double($0.allocations) / n) }
    }

    /// `value` with one decimal.
    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
