import Foundation
import Synchronization

/// The time the pacer and the scheduler go by, in Unix milliseconds. Production uses
/// ``SystemDeliveryClock``; tests use ``ManualDeliveryClock`` and move it instead of waiting
/// minutes for a rate-limit window or a `send_date`.
public protocol DeliveryClock: Sendable {
    /// Unix milliseconds now.
    func nowMilliseconds() -> Int64
    /// Returns once the clock reads `deadline` (Unix milliseconds) or later; throws
    /// `CancellationError` when the task is cancelled first.
    func sleep(untilMilliseconds deadline: Int64) async throws
}

/// The wall clock.
public struct SystemDeliveryClock: DeliveryClock {
    /// The wall clock.
    public init() {}

    /// Unix milliseconds now.
    public func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Sleeps until the wall clock reads `deadline`.
    public func sleep(untilMilliseconds deadline: Int64) async throws {
        let delta = deadline - nowMilliseconds()
        if delta > 0 { try await Task.sleep(for: .milliseconds(delta)) }
    }
}

/// A clock that moves only when told to: sleepers wake when ``advance(byMilliseconds:)`` or
/// ``set(_:)`` carries it past their deadline. For tests.
public final class ManualDeliveryClock: DeliveryClock {
    private struct Sleeper {
        var deadline: Int64
        var continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now: Int64
        var sleepers: [UInt64: Sleeper] = [:]
        var nextId: UInt64 = 0
    }
    private let state: Mutex<State>

    /// A clock reading `start` (Unix milliseconds).
    public init(startMilliseconds start: Int64) { state = Mutex(State(now: start)) }

    /// Unix milliseconds now.
    public func nowMilliseconds() -> Int64 { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock (tests wait for this to reach a count).
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock is moved to `deadline` or past it.
    public func sleep(untilMilliseconds deadline: Int64) async throws {
        let id: UInt64 = state.withLock { s in
            s.nextId += 1
            return s.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: Bool = state.withLock { s in
                    if deadline <= s.now || Task.isCancelled { return true }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves the clock forward and wakes every sleeper now due.
    public func advance(byMilliseconds delta: Int64) {
        set(nowMilliseconds() + delta)
    }

    /// Sets the clock and wakes every sleeper now due.
    public func set(_ value: Int64) {
        let due: [Sleeper] = state.withLock { s in
            s.now = value
            let ids = s.sleepers.filter { $0.value.deadline <= value }.map(\.key)
            return ids.compactMap { s.sleepers.removeValue(forKey: $0) }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
