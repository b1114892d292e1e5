import Foundation

/// Request ids that sort by time: `req_` + 12 hex digits of Unix milliseconds + 8 random hex.
public enum RequestID {
    /// A new id.
    public static func make(nowMs: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) -> String {
        let t = String(UInt64(max(0, nowMs)), radix: 16)
        let r = String(UInt32.random(in: .min ... .max), radix: 16)
        return "req_" + String(repeating: "0", count: max(0, 12 - t.count)) + t + String(repeating: "0", count: 8 - r.count) + r
    }
}
