import PushBridgeCore

extension ScheduledStart {
    /// The completion of a request's audit row built from the scheduler's record of its
    /// starts, once all are final (nil before): the outcome of ``auditOutcome(of:)``, the time
    /// the last start became final, its upstream status, OpenPush's answer
    /// `{"notification_id": …}` rebuilt from its notification id, and the attempts as far as
    /// the audit's mirror recorded them (`attempts` gives them by ordinal). No request body.
    public static func auditCompletion(of starts: [ScheduledStart], attempts: (Int) -> [UpstreamAttempt], now: Int64) -> AuditCompletion? {
        guard let (outcome, message) = auditOutcome(of: starts) else { return nil }
        let recorded = starts.sorted { $0.ordinal < $1.ordinal }.flatMap { attempts($0.ordinal) }
        let last = starts.max { ($0.finishedAt ?? 0, $0.ordinal) < ($1.finishedAt ?? 0, $1.ordinal) }
        let notificationId = last?.notificationId ?? starts.compactMap(\.notificationId).last
        return AuditCompletion(
            finishedAt: last?.finishedAt ?? now, outcome: outcome, upstreamStatus: last?.upstreamStatus ?? starts.compactMap(\.upstreamStatus).last,
            upstreamBody: notificationId.map { JSONWriter.string(.object(["notification_id": .string($0)])) },
            upstreamLatencyMs: recorded.isEmpty ? nil : recorded.reduce(0) { $0 + $1.latencyMs }, attempts: recorded, errorMessage: message)
    }
}
