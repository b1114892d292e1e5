import PushBridgeCore

/// Writing a row before anything leaves.
struct AuditBegin: Sendable {
    /// The audit.
    let audit: AuditStore
    /// Where a failed write is said.
    let log: EventLog
    /// Counts an unreachable audit.
    let metrics: Metrics
    /// Unix milliseconds now (a start's record in flight is stamped with it).
    var clock: @Sendable () -> Int64 = { AuditClock.nowMilliseconds() }

    /// Nil once the `pending` row is committed (or was already, by another side of the same
    /// request), with the records in flight of the starts it places anew
    /// (``LedgerMode/beginChanges(_:now:)``) in the same commit; otherwise the outcome to
    /// answer with: nothing was sent, and nothing more can be written.
    func begin(_ request: ModeRequest, translation: Translation? = nil) async -> Outcome? {
        guard !request.rowBegun else { return nil }
        let inbound = request.inbound
        do {
            try await audit.begin(inbound.entry(translation: translation ?? request.translation, app: request.app),
                                  ledger: LedgerMode.beginChanges(request, now: clock()))
            return nil
        } catch {
            log.error("audit write failed; request not forwarded", ["request_id": .string(inbound.requestId), "error": .string("\(error)")])
            let unavailable = (error as? AuditError)?.isUnavailable == true
            if unavailable { metrics.recordAuditUnavailable() }
            let failure: ProxyFailure = unavailable ? .unavailable("the audit database cannot be reached; nothing was sent; retry shortly")
                : .internal("the audit could not be written; nothing was sent")
            return Outcome(answer: inbound.answer(failure), audit: .done,
                           route: inbound.route, app: request.app.name, log: AuditOutcome.failed.rawValue, scrubber: inbound.scrubber)
        }
    }
}
