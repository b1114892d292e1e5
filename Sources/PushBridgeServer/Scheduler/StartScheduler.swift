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

    /// Every state change of the stored starts.
    public let lifecycle: ScheduledStartLifecycle
    /// The stored starts.
    public var store: ScheduledStartStore { lifecycle.store }
    private let delivery: OpenPushDelivery
    private let log: EventLog
    private let key: @Sendable (String) -> String?
    private let control = Mutex(Control())
    private let overdueCount = Atomic<Int>(0)
    /// A start still to send this long (ms) after its send time is overdue
    /// (`pushbridge_scheduled_starts_overdue`).
    public static let overdueAfterMilliseconds: Int64 = 60_000
    /// When this scheduler was made (delivery clock, the one the proxy stamps audit rows
    /// with): audit rows received before it belong to an earlier process, so a `scheduled`
    /// one with no start in the file is not in flight.
    private let createdAt: Int64

    /// A scheduler; `key` gives the current REST key of a configured app by name.
    public init(store: ScheduledStartStore, delivery: OpenPushDelivery, audit: AuditStore, log: EventLog, key: @escaping @Sendable (String) -> String?) {
        self.lifecycle = ScheduledStartLifecycle(store: store, audit: audit)
        self.delivery = delivery
        self.createdAt = delivery.clock.nowMilliseconds()
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
        return await lifecycle.reconcile(cutoff: createdAt, now: { clock.nowMilliseconds() }, log: log)
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
            await measureOverdue()
            let now = clock.nowMilliseconds()
            let next = ((try? await store.nextSendAt()) ?? nil) ?? now + 60_000
            let wakeAt = store.pollMilliseconds.map { min(next, now + $0) } ?? next
            let clock = self.clock
            let sleeper: Task<Void, Never>? = control.withLock { c in
                // Checked under the lock stop() sets it with, so a stop can never miss a sleeper.
                if c.woken || c.stopped { c.woken = false; return nil }
                let t = Task<Void, Never> { _ = try? await clock.sleep(untilMilliseconds: wakeAt) }
                c.sleeper = t
                return t
            }
            await sleeper?.value
            control.withLock { $0.sleeper = nil }
        }
    }

    /// The starts still to send more than ``overdueAfterMilliseconds`` after their send time,
    /// as the last ``measureOverdue()`` (each pass of the loop, after its sends) counted them.
    public var overdue: Int { overdueCount.load(ordering: .relaxed) }

    /// Counts the overdue starts in the store (on the store's own queue, never on a caller's
    /// thread) for ``overdue``; a failed count keeps the last value and is logged.
    public func measureOverdue() async {
        do {
            let count = try await store.overdue(before: clock.nowMilliseconds() - Self.overdueAfterMilliseconds)
            overdueCount.store(count, ordering: .relaxed)
        } catch {
            log.error("scheduler could not count overdue starts", ["error": .string("\(error)")])
        }
    }

    /// Claims and sends every start due now (concurrently; the pacer orders them).
    public func sendDue() async {
        let due: [ScheduledStart]
        do {
            due = try await lifecycle.claimDue(now: clock.nowMilliseconds())
        } catch {
            log.error("scheduler could not read due starts", ["error": .string("\(error)")])
            return
        }
        await withTaskGroup(of: Void.self) { group in
            for start in due { group.addTask { await self.send(start) } }
        }
    }

    /// Sends a start this scheduler claimed and records how it went.
    private func send(_ start: ScheduledStart) async {
        var result: UpstreamResult = .failed(message: "the app \(start.appName) is no longer configured")
        var attempts: [UpstreamAttempt] = []
        if let request = start.request, let key = key(start.appName) {
            (result, attempts) = await delivery.deliverScheduled(request, key: key, requestId: start.requestId)
        }
        let clock = self.clock
        for problem in await lifecycle.finish(start, result: result, attempts: attempts, now: { clock.nowMilliseconds() }) {
            log.error("scheduler could not record a send", ["scheduled_id": .string(start.id), "request_id": .string(start.requestId), "error": .string(problem)])
        }
        log.info("scheduled start sent", ["request_id": .string(start.requestId), "scheduled_id": .string(start.id),
                                          "outcome": .string(result.messageId != nil ? "sent" : "failed")])
    }
}
