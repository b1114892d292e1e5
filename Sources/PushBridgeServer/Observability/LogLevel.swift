/// How important an event-log line is; lines below an ``EventLog``'s minimum level are skipped.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    /// Detail for whoever is debugging the proxy.
    case debug
    /// Normal operation: one access line per request.
    case info
    /// Something an operator should look at, such as a warning-severity translation finding.
    case warning
    /// Something failed.
    case error

    private var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warning: 2
        case .error: 3
        }
    }

    /// Orders by importance.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}
