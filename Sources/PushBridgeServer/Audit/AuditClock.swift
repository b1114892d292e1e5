import Foundation

/// Wall-clock time in the audit's unit.
public enum AuditClock {
    /// Now, in Unix milliseconds.
    public static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
