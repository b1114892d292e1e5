import PushBridgeCore
import Synchronization

/// Sends stored starts at their time: one task that sleeps on the delivery clock until the
/// earliest pending `send_at` (or until ``wake()`` says a new one came), claims each due start
/// (`pending` → `sending`, one transaction), sends it through the pacer with retries (its
/// idempotency key makes a resend after a crash a replay, not a second start), records
/// `sent`/`failed` and deletes the body (one transaction), then completes the audit row.
public final class StartScheduler: Sendable {
    private struct Control {
        var loop: Task<Void, Never>?
        var sleeper: Task<Void, Never>?
        var woken = false
        var stopped = false
    }

    /// The stored starts.
    public let store: ScheduledStartStore
    private let delivery: OpenPushDelivery
    private let audit: AuditStore
    private let log: EventLog
    private let key: @Sendable (String) -> String?
    private let control = Mutex(Control())
    /// When this scheduler was made (audit clock): audit rows received before it belong to
    /// an earlier process, so a `scheduled` one with no start in the file is not in flight.
    private let createdAt = AuditClock.nowMilliseconds()

    /// A scheduler; `key` gives the current REST key of a configured app by name.
    public init(store: ScheduledStartStore, delivery: OpenPushDelivery, audit: AuditStore, log: EventLog, key: @escaping @Sendable (String) -> String?) {
        self.store = store
        self.delivery = delivery
        self.audit = audit
        self.log = log
        self.key = key
    }

    private var clock: any DeliveryClock { delivery.clock }

    /// Starts the loop, after bringing the audit in line with the scheduler's file
    /// (``reconcileAudit()``).
    public func start() {
        let task = Task {
            _ = await self.reconcileAudit()
            await self.loop()
        }
        control.withLock { $0.loop = task }
    }

    /// Stops the loop and waits for sends in progress to finish.
    public func stop() async {
        let task = control.withLock { c in
            c.stopped = true
            c.sleeper?.cancel()
            return c.loop
        }
        task?.cancel()
        await task?.value
    }

    /// Completes the audit rows that a process stopped between a commit in the scheduler's
    /// file and the audit's left behind (see ``ScheduledAuditReconciler``); returns how many
    /// requests it settled. ``start()`` runs it before the first send.
    public func reconcileAudit() async -> Int {
        let clock = self.clock
        return await ScheduledAuditReconciler(store: store, audit: audit, log: log, cutoff: createdAt, now: { clock.nowMilliseconds() }).run()
    }

    /// A new start was stored: re-read the earliest send time.
    public func wake() {
        let sleeper = control.withLock { c in
            c.woken = true
            return c.sleeper
        }
        sleeper?.cancel()
    }

    private func loop() async {
        while !control.withLock({ $0.stopped }) {
            await sendDue()
            let now = clock.nowMilliseconds()
            let next = (try? store.nextSendAt()) ?? nil
            let clock = self.clock
            let sleeper: Task<Void, Never>? = control.withLock { c in
                // Checked under the lock stop() sets it with, so a stop can never miss a sleeper.
                if c.woken || c.stopped { c.woken = false; return nil }
                let t = Task<Void, Never> { _ = try? await clock.sleep(untilMilliseconds: next ?? now + 60_000) }
                c.sleeper = t
                return t
            }
            await sleeper?.value
            control.withLock { $0.sleeper = nil }
        }
    }

    /// Sends every start due now (concurrently; the pacer orders them).
    public func sendDue() async {
        let due: [ScheduledStart]
        do {
            due = try store.due(now: clock.nowMilliseconds())
        } catch {
            log.error("scheduler could not read due starts", ["error": .string("\(error)")])
            return
        }
        await withTaskGroup(of: Void.self) { group in
            for start in due { group.addTask { await self.send(start) } }
        }
    }

    private func send(_ start: ScheduledStart) async {
        let now = clock.nowMilliseconds()
        guard (try? store.claim(start.id, now: now)) == true else { return }
        try? await audit.updateScheduled(requestId: start.requestId, ordinal: start.ordinal, state: "sending", at: now)
        var result: UpstreamResult = .failed(message: "the app \(start.appName) is no longer configured")
        var attempts: [UpstreamAttempt] = []
        if let request = start.request, let key = key(start.appName) {
            await waitForSlot(app: request.appId)
            let budget = OpenPushDelivery.requestBudget(delivery.settings, upstreamTimeout: delivery.upstreamTimeout)
            (result, attempts) = await delivery.send(request, key: key, requestId: start.requestId, deadline: .now + budget)
        }
        var id: String?, error: String?
        switch result {
        case .accepted(let i, _), .scheduled(let i): id = i
        case .rejected(_, let m, _), .failed(let m): error = m
        }
        do {
            try store.finish(start.id, sent: id != nil, notificationId: id, status: attempts.last?.status, error: error, now: clock.nowMilliseconds())
        } catch {
            log.error("scheduler could not record a send", ["scheduled_id": .string(start.id), "error": .string("\(error)")])
        }
        try? await audit.updateScheduled(requestId: start.requestId, ordinal: start.ordinal, state: id != nil ? "sent" : "failed", at: clock.nowMilliseconds(),
                                         status: attempts.last?.status,
                                         attempts: attempts.map { AuditAttempt(at: $0.startedAt, status: $0.status, error: $0.error, latencyMs: $0.latencyMs) }, error: error)
        log.info("scheduled start sent", ["request_id": .string(start.requestId), "scheduled_id": .string(start.id),
                                          "outcome": .string(id != nil ? "sent" : "failed")])
        await completeAudit(start.requestId, attempts: attempts)
    }

    /// Takes a slot from the pacer, waiting as long as it takes (no caller is waiting).
    private func waitForSlot(app: String) async {
        while !Task.isCancelled {
            switch delivery.pacer.reserve(app: app, count: 1, now: clock.nowMilliseconds()) {
            case .granted(let g):
                await delivery.waitForSlot(g[0], app: app)
                return
            case .refused(let seconds):
                try? await clock.sleep(untilMilliseconds: clock.nowMilliseconds() + Int64(seconds) * 1000)
            }
        }
    }

    /// Completes the request's audit row once none of its starts is pending.
    func completeAudit(_ requestId: String, attempts: [UpstreamAttempt]) async {
        guard let siblings = try? store.starts(ofRequest: requestId),
              let (outcome, message) = ScheduledStart.auditOutcome(of: siblings) else { return }
        let completion = AuditCompletion(
            finishedAt: clock.nowMilliseconds(), outcome: outcome, upstreamStatus: attempts.last?.status, upstreamBody: attempts.last?.body,
            upstreamLatencyMs: attempts.isEmpty ? nil : attempts.reduce(0) { $0 + $1.latencyMs },
            attempts: attempts.map { AuditAttempt(at: $0.startedAt, status: $0.status, error: $0.error, latencyMs: $0.latencyMs) },
            errorMessage: message)
        if (try? await audit.completeLater(requestId, completion)) == nil {
            log.error("audit completion of a scheduled start failed", ["request_id": .string(requestId)])
        }
    }
}
