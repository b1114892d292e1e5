import PushBridgeCore

/// Everything that sends to OpenPush: the forwarder, the result mapping, the idempotency
/// keys' retry rule and the pacer, behind three entry points — ``deliver(_:key:requestId:)``
/// (paced now, a caller waits), ``deliverScheduled(_:key:requestId:)`` (paced at a stored
/// start's time) and ``deliverShadow(_:key:requestId:baseURL:timeout:)`` (paced after live
/// sends, one attempt, a shadow's) — all returning ``UpstreamAttempt``s. Paced per app by a ``SendPacing``,
/// retried only when a retry cannot act twice, every attempt kept.
///
/// A start always carries an `idempotency_key` (see ``IdempotencyKeys``), so it is retried
/// after a timeout, a broken connection or a 5xx. An update or end has no such key and is
/// retried only when the transport proves that not one byte left (connection refused). A 429
/// is never retried here: it drains the app's bucket until its `Retry-After` and goes back to
/// the caller in its dialect.
public struct OpenPushDelivery: Sendable {
    /// What a delivery produced.
    public enum Outcome: Sendable {
        /// The pacer's queue for the app is full; nothing was sent.
        case rateLimited(retryAfter: Int)
        /// The shared pacing state could not be reached; nothing was sent.
        case pacerUnavailable
        /// One result per request, and every attempt made, in order.
        case delivered(results: [UpstreamResult], attempts: [UpstreamAttempt])
    }

    /// Sends one attempt.
    public let forwarder: OpenPushForwarder
    /// Paces sends per OpenPush app (in this process, or shared by every instance).
    public let pacer: any SendPacing
    /// The pacer's clock.
    public let clock: any DeliveryClock
    /// One upstream call's hard deadline.
    public let upstreamTimeout: Duration
    /// The updates sent recently, so a caller's repeat of one is not sent twice.
    let repeats: UpdateRepeats

    /// A delivery.
    public init(forwarder: OpenPushForwarder, pacer: any SendPacing, clock: any DeliveryClock, upstreamTimeout: Duration) {
        self.forwarder = forwarder
        self.pacer = pacer
        self.clock = clock
        self.upstreamTimeout = upstreamTimeout
        self.repeats = UpdateRepeats(window: .milliseconds(pacer.settings.repeatWindowMs))
    }

    /// The settings.
    public var settings: DeliverySettings { pacer.settings }

    /// The longest a caller's request may spend sending, paced wait included: the longest wait
    /// plus every attempt's deadline and backoff. The HTTP handler deadline is this plus slack.
    public static func requestBudget(_ s: DeliverySettings, upstreamTimeout: Duration) -> Duration {
        .milliseconds(s.maxWaitMs) + upstreamTimeout * s.maxAttempts + .milliseconds(s.backoffMaxMs * Int64(max(s.maxAttempts - 1, 0)))
    }

    /// Paced now, for a caller who waits: reserves one slot per request at once (or refuses
    /// them all when the app's queue is full), sends each at its slot with the retries the
    /// rules allow, all within ``requestBudget(_:upstreamTimeout:)``.
    public func deliver(_ requests: [OpenPushRequest], key: String, requestId: String) async -> Outcome {
        guard let app = requests.first?.appId else { return .delivered(results: [], attempts: []) }
        let grants: [Int64]
        switch await pacer.reserve(app: app, count: requests.count, now: clock.nowMilliseconds()) {
        case .refused(let seconds): return .rateLimited(retryAfter: seconds)
        case .unavailable: return .pacerUnavailable
        case .granted(let g): grants = g
        }
        let deadline = ContinuousClock.now + Self.requestBudget(settings, upstreamTimeout: upstreamTimeout)
        var results: [UpstreamResult] = [], attempts: [UpstreamAttempt] = []
        for (index, (request, grant)) in zip(requests, grants).enumerated() {
            await waitForSlot(grant, app: app, justReserved: index == 0)
            guard ContinuousClock.now + upstreamTimeout <= deadline else {
                results.append(.failed(message: "not sent: the request's deadline would pass before OpenPush could answer"))
                continue
            }
            let (result, made) = await send(request, key: key, requestId: requestId, deadline: deadline)
            results.append(result)
            // The first request's attempts taken as they are (appending to an empty array copies them).
            if attempts.isEmpty { attempts = made } else { attempts += made }
        }
        return .delivered(results: results, attempts: attempts)
    }

    /// Paced at its time, for a start nobody waits on (the scheduler's): takes a slot however
    /// long the app's queue is, then sends with the same retries and budget as ``deliver``.
    public func deliverScheduled(_ request: OpenPushRequest, key: String, requestId: String) async -> (UpstreamResult, [UpstreamAttempt]) {
        _ = await takeSlot(app: request.appId, patient: true)
        return await send(request, key: key, requestId: requestId, deadline: .now + Self.requestBudget(settings, upstreamTimeout: upstreamTimeout))
    }

    /// Sends one request whose first slot is already taken, retrying as the rules allow
    /// until `deadline`; each retry takes a slot of its own.
    func send(_ request: OpenPushRequest, key: String, requestId: String, deadline: ContinuousClock.Instant) async -> (UpstreamResult, [UpstreamAttempt]) {
        var attempts: [UpstreamAttempt] = []
        while true {
            let (response, attempt) = await forwarder.exchange(request, key: key, requestId: requestId)
            attempts.append(attempt)
            await drainIfRateLimited(response, app: request.appId)
            var system = SystemRandomNumberGenerator()
            guard let backoff = Self.retryWait(request, after: response, attempts: attempts.count, settings: settings,
                                               upstreamTimeout: upstreamTimeout, deadline: deadline, random: &system) else {
                return (UpstreamResultMapping.result(response), attempts)
            }
            try? await Task.sleep(for: .milliseconds(backoff))
            guard await takeSlot(app: request.appId, patient: false) else { return (UpstreamResultMapping.result(response), attempts) }
        }
    }

    /// After OpenPush's 429: no send for `app` until its `Retry-After` (a window without one).
    func drainIfRateLimited(_ response: UpstreamResponse, app: String) async {
        guard let reply = response.reply, reply.status == 429 else { return }
        let seconds = reply.header("retry-after").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? Int(settings.windowMs / 1000)
        await pacer.drain(app: app, until: clock.nowMilliseconds() + Int64(seconds) * 1000)
    }

    /// Whether a request may be sent again after `response`: a start with an idempotency key
    /// after any transport failure or 5xx; anything when it provably never left.
    public static func mayRetry(_ request: OpenPushRequest, after response: UpstreamResponse) -> Bool {
        switch response {
        case .failure(let f):
            if f.provablyNotSent { return true }
            guard f.kind != .shutDown, f.kind != .responseTooLarge else { return false }
            return request.hasIdempotencyKey
        case .reply(let r):
            return r.status >= 500 && request.hasIdempotencyKey
        }
    }

    /// Takes one slot for `app` and sleeps until it. A full queue refuses (false), unless
    /// `patient`: then it waits until a slot fits, and gives up (false) only when cancelled.
    func takeSlot(app: String, patient: Bool) async -> Bool {
        while true {
            switch await pacer.reserve(app: app, count: 1, now: clock.nowMilliseconds()) {
            case .granted(let g):
                await waitForSlot(g[0], app: app, justReserved: true)
                return true
            case .refused(let seconds):
                guard patient, !Task.isCancelled else { return false }
                try? await clock.sleep(untilMilliseconds: clock.nowMilliseconds() + Int64(seconds) * 1000)
            case .unavailable:
                // A scheduled start waits for the shared state to come back; a retry does not.
                guard patient, !Task.isCancelled else { return false }
                try? await clock.sleep(untilMilliseconds: clock.nowMilliseconds() + 1000)
            }
        }
    }

    /// Sleeps until `grant`, then past any drain a 429 set meanwhile. A grant that is due
    /// already and `justReserved` (nothing sent since its reservation read the app's window,
    /// whose block it lies after) goes at once: no "meanwhile" has passed, and asking the
    /// pacer again would cost a PostgreSQL round trip per send for nothing.
    func waitForSlot(_ grant: Int64, app: String, justReserved: Bool) async {
        if justReserved, grant <= clock.nowMilliseconds() { return }
        try? await clock.sleep(untilMilliseconds: grant)
        let blocked = await pacer.blockedUntil(app: app)
        if blocked > clock.nowMilliseconds() { try? await clock.sleep(untilMilliseconds: blocked) }
    }
}

extension OpenPushRequest {
    /// Whether OpenPush would deduplicate this request: a start with an `idempotency_key`.
    public var hasIdempotencyKey: Bool {
        if case .start(let s) = payload { return s.idempotencyKey != nil }
        return false
    }
}
