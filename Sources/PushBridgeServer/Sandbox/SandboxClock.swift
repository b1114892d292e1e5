import Foundation
import Synchronization

/// The sandbox's clock, in Unix seconds. Tests move it forward instead of sleeping, in process
/// with `advance(by:)` or over HTTP with `POST /_sandbox/clock`.
public final class SandboxClock: Sendable {
    private let seconds: Mutex<Int64>

    /// A clock starting at `start` (Unix seconds); the wall clock when nil.
    public init(start: Int64? = nil) {
        seconds = Mutex(start ?? Int64(Date().timeIntervalSince1970))
    }

    /// The current time in Unix seconds.
    public var now: Int64 { seconds.withLock { $0 } }

    /// Moves the clock forward (or back, with a negative value) and returns the new time.
    @discardableResult
    public func advance(by delta: Int64) -> Int64 {
        seconds.withLock { value in
            value += delta
            return value
        }
    }

    /// Sets the clock to an absolute time.
    public func set(_ value: Int64) {
        seconds.withLock { $0 = value }
    }
}
