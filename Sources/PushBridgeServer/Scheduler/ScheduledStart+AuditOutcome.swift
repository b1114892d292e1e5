extension ScheduledStart.State {
    /// Whether nothing will change it any more (sent, failed or cancelled).
    public var isFinal: Bool { self == .sent || self == .failed || self == .cancelled }
}

extension ScheduledStart {
    /// What the audit row of a request says once all its starts are final: `failed` when any
    /// failed, else `sent` when any was sent, else `rejected` (all cancelled), with the first
    /// error for people. Nil while a start is still pending or sending.
    public static func auditOutcome(of starts: [ScheduledStart]) -> (outcome: AuditOutcome, message: String?)? {
        guard !starts.isEmpty, starts.allSatisfy({ $0.state.isFinal }) else { return nil }
        let outcome: AuditOutcome
        if starts.contains(where: { $0.state == .failed }) {
            outcome = .failed
        } else if starts.contains(where: { $0.state == .sent }) {
            outcome = .sent
        } else {
            outcome = .rejected
        }
        return (outcome, starts.compactMap(\.error).first ?? (outcome == .rejected ? "cancelled before its send time" : nil))
    }
}
