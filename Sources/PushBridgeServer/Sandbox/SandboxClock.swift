import Foundation
import Synchronization

/// The sandbox's clock, in Unix seconds. It follows the wall clock (shifted by whatever a test
/// moved it); a frozen clock stands still between moves. Tests move it instead of sleeping, in
/// process with `advance(by:)` or over HTTP with `POST /_sandbox/clock`.
public final class SandboxClock: Sendable {
    /// Either the shift from the wall clock (running) or the time itself (frozen).
    private struct Reading: Sendable {
        var frozen: Bool
        var value: Int64
    }

    private let reading: Mutex<Reading>

    /// A clock that reads `start` now (the wall clock when nil). It runs with real time unless
    /// `frozen`, in which case only `advance(by:)` and `set(_:)` move it.
    public init(start: Int64? = nil, frozen: Bool = false) {
        let begin = start ?? Self.wallSeconds
        reading = Mutex(Reading(frozen: frozen, value: frozen ? begin : begin - Self.wallSeconds))
    }

    /// The current time in Unix seconds.
    public var now: Int64 {
        reading.withLock { $0.frozen ? $0.value : Self.wallSeconds + $0.value }
    }

    /// Moves the clock forward (or back, with a negative value) and returns the new time.
    @discardableResult
    public func advance(by delta: Int64) -> Int64 {
        reading.withLock { reading in
            reading.value += delta
            return reading.frozen ? reading.value : Self.wallSeconds + reading.value
        }
    }

    /// Sets the clock to an absolute time (a running clock runs on from there).
    public func set(_ value: Int64) {
        reading.withLock { reading in
            reading.value = reading.frozen ? value : value - Self.wallSeconds
        }
    }

    /// The wall clock in whole Unix seconds.
    private static var wallSeconds: Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) }
}
