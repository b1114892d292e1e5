import Foundation

/// How far the SQLite writer has gone: a count of the transactions it committed (and of the
/// carries it gave up), for the acknowledgement of a batch whose rollup counters it carried
/// (``AuditWriter/awaitLaterCommit(after:)``): that batch's callers are answered only once a
/// later transaction committed, so the last callers of a busy moment find their counters in
/// the rollups. Any thread.
///
/// Why `@unchecked Sendable` is sound: `count` is read and written only under `condition`'s lock.
final class AuditCommitProgress: @unchecked Sendable {
    private let condition = NSCondition()
    private var count = 0

    /// The count now.
    var current: Int {
        condition.lock()
        defer { condition.unlock() }
        return count
    }

    /// One more transaction committed (or carry given up); wakes every waiter. Returns the new count.
    @discardableResult
    func advance() -> Int {
        condition.lock()
        defer { condition.unlock() }
        count += 1
        condition.broadcast()
        return count
    }

    /// Blocks until the count is past `mark`, or until `deadline`; returns whether it got past.
    func wait(past mark: Int, until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while count <= mark {
            if !condition.wait(until: deadline) { return count > mark }
        }
        return true
    }
}
