import PushBridgeCore

/// Every state change of a scheduled start, made here and only here: in the store
/// (``ScheduledStartStore``: the scheduler's file, or the shared PostgreSQL table) and in the
/// audit (its `scheduled_sends` mirror and its request's row), always in the same order and
/// through named statements (``AuditStatement``). The one exception is a start left
/// `sending` by a process that is gone, which the store's own recovery and
/// ``InstanceRegistry``'s takeover make `pending` again (``ScheduledStartStore/release(claimedBy:on:)``).
///
/// The life of a start: ``store(_:entry:completion:now:)`` (the proxy answered the caller),
/// ``claimDue(now:)`` and ``finish(_:result:attempts:now:)`` (the scheduler at its time),
/// ``cancel(_:auditDatabase:now:)`` (the CLI, either engine), ``reconcile(cutoff:now:log:)`` (a proxy
/// starting, for what a crash between two commits left behind). The audit is always written
/// first on the way in, the store first on the way out, so a crash can leave the
/// audit behind the file but never a start the audit does not know.
public struct ScheduledStartLifecycle: Sendable {
    /// Where the starts are kept (the scheduler's file, or the shared PostgreSQL database).
    public let store: ScheduledStartStore
    /// The proxy's audit; nil for the CLI, which writes the audit on its own connection.
    let audit: AuditStore?

    /// The lifecycle of the starts in `store`, audited through `audit`.
    public init(store: ScheduledStartStore, audit: AuditStore?) {
        self.store = store
        self.audit = audit
    }

    /// Why ``store(_:entry:completion:now:)`` failed, and whether the audit row was already
    /// written (then ``abandon(_:completion:now:)`` must correct it).
    public struct StoreFailure: Error, CustomStringConvertible {
        /// The audit row says `scheduled`.
        public var recorded: Bool
        /// What failed.
        public var underlying: any Error
        /// The underlying error.
        public var description: String { "\(underlying)" }
    }

    /// Stores a request's starts: its complete audit row (`scheduled`) and a mirror row per
    /// start with the redacted request, in one audit commit, then the starts in the store, in
    /// one commit of its own (on the store's queue, off the cooperative pool): two durable
    /// commits for any number of starts. On SQLite they are two files. On PostgreSQL both
    /// tables are in one database, but the audit commits on its writer's connection, in a
    /// group commit shared with other requests, and the store on its own: one commit would
    /// put the device ids of the start's body through the audit's writer, which must never
    /// carry them, and make the audit's writer a second writer of `scheduled_starts`.
    public func store(_ starts: [ScheduledStart], entry: AuditEntry, completion: AuditCompletion, now: Int64) async throws(StoreFailure) {
        guard let audit else { throw StoreFailure(recorded: false, underlying: AuditError.unknownRequest(entry.requestId)) }
        var recorded = false
        do {
            let redacted = entry.translated.flatMap { try? JSONParser.parse(Array($0.utf8)) }?.arrayValue ?? []
            let mirrors = starts.map { s in
                AuditStatement.mirrorScheduled(requestId: s.requestId, ordinal: s.ordinal, sendAt: s.sendAt, targetApp: s.targetApp,
                                               redactedRequest: s.ordinal < redacted.count ? JSONWriter.string(redacted[s.ordinal]) : "{}",
                                               createdAt: entry.receivedAt, instance: audit.configuration.instanceName)
            }
            try await audit.record(entry, completion, with: mirrors)
            recorded = true
            try await store.insert(starts, now: now)
        } catch {
            throw StoreFailure(recorded: recorded, underlying: error)
        }
    }

    /// The starts could not be stored after the audit said `scheduled`: the row and its
    /// mirror rows now say what the caller is told (`completion`: failed, nothing sent).
    public func abandon(_ starts: [ScheduledStart], completion: AuditCompletion, now: Int64) async throws {
        guard let audit, let requestId = starts.first?.requestId else { return }
        try await audit.finish(requestId, completion)
        for s in starts {
            try? await audit.run(.mirrorState(requestId: s.requestId, ordinal: s.ordinal, state: .failed, at: now, error: completion.errorMessage))
        }
    }

    /// Claims every start due at `now` in the store (another scheduler's claims are skipped),
    /// then marks them all `sending` in the mirror in one audit commit; the claimed starts.
    public func claimDue(now: Int64) async throws -> [ScheduledStart] {
        let claimed = try await store.claimDue(now: now, limit: 100)
        if !claimed.isEmpty {
            try? await audit?.run(.mirrorClaimed(claimed.map { ($0.requestId, $0.ordinal) }, at: now))
        }
        return claimed
    }

    /// `sending` → `sent` or `failed` with OpenPush's answer: the file (its body deleted in
    /// the same transaction), the mirror, then the request's row once none of its starts is
    /// open. Errors are logged by the caller from the returned list.
    public func finish(_ start: ScheduledStart, result: UpstreamResult, attempts: [UpstreamAttempt], now: @Sendable () -> Int64) async -> [String] {
        var problems: [String] = []
        let (id, error) = (result.messageId, result.failureMessage)
        do {
            try await store.finish(start.id, sent: id != nil, notificationId: id, status: attempts.last?.status, error: error, now: now())
        } catch {
            problems.append("the scheduler's file could not record the send: \(error)")
        }
        do {
            try await audit?.run(.mirrorState(requestId: start.requestId, ordinal: start.ordinal, state: id != nil ? .sent : .failed, at: now(),
                                              status: attempts.last?.status, attempts: attempts, error: error))
        } catch {
            problems.append("the audit's mirror could not record the send: \(error)")
        }
        guard let siblings = try? await store.starts(ofRequest: start.requestId),
              let (outcome, message) = ScheduledStart.auditOutcome(of: siblings) else { return problems }
        let completion = AuditCompletion(
            finishedAt: now(), outcome: outcome, upstreamStatus: attempts.last?.status, upstreamBody: attempts.last?.body,
            upstreamLatencyMs: attempts.isEmpty ? nil : attempts.reduce(0) { $0 + $1.latencyMs }, attempts: attempts, errorMessage: message)
        do {
            try await audit?.run(.completeScheduled(start.requestId, completion, onlyWhileScheduled: false, bodyLimit: audit?.configuration.bodyLimit ?? 0))
        } catch {
            problems.append("the audit row could not be completed: \(error)")
        }
        return problems
    }

    /// Brings the audit in line with the scheduler's file (see ``ScheduledAuditReconciler``);
    /// returns how many requests it settled.
    public func reconcile(cutoff: Int64, now: @escaping @Sendable () -> Int64, log: EventLog) async -> Int {
        guard let audit else { return 0 }
        return await ScheduledAuditReconciler(store: store, audit: audit, log: log, cutoff: cutoff, now: now).run()
    }
}

extension UpstreamResult {
    /// The message id OpenPush (or PushBridge's scheduler) gave; nil when it was not accepted.
    var messageId: String? {
        switch self {
        case .accepted(let id, _), .scheduled(let id): id
        case .rejected, .failed: nil
        }
    }

    /// Why it was not accepted; nil when it was.
    var failureMessage: String? {
        switch self {
        case .accepted, .scheduled: nil
        case .rejected(_, let message, _), .failed(let message): message
        }
    }
}
