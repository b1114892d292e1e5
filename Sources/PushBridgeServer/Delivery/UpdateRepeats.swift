import Foundation
import PushBridgeCore
import Synchronization

/// Remembers the updates (and ends) this instance sent recently, so that a caller's repeat of
/// one it got no answer for is not sent to OpenPush a second time.
///
/// OpenPush has no idempotency for updates: the same update sent twice is sent twice (an
/// alert rings twice). A caller whose front proxy gave up before PushBridge answered (or
/// whose own timeout did) retries, and without this the retry would be a second send. Two
/// requests are the same update when the OpenPush requests they translate to are the same
/// (app, path with its activity id, body byte for byte, in order) and they carry the same
/// OpenPush key: the ``key(for:key:)`` fingerprint.
///
/// - While the first is still being sent (waiting for its slot, in flight, retrying), a
///   repeat waits for it and is answered with its result.
/// - Once OpenPush accepted every request of the first, a repeat within `window` is answered
///   with the same result (the same notification ids), without a send.
/// - Anything else (a rate-limit answer, an error, a timeout) is not remembered: the repeat
///   is a real retry and is sent. A timeout may have reached OpenPush; PushBridge cannot tell
///   and does not guess.
///
/// In this process only: behind a balancer, a repeat that lands on another instance is sent
/// (route one activity's updates to one instance to close that, see docs/deployment.md).
final class UpdateRepeats: Sendable {
    /// What a remembered send produced, and which request made it.
    struct First: Sendable {
        /// The first request's id.
        var requestId: String
        /// Its delivery's outcome (its results; the attempts are not kept).
        var outcome: OpenPushDelivery.Outcome
        /// When it finished.
        var finishedAt: ContinuousClock.Instant
    }

    /// How a delivery went: sent now, or answered with an earlier identical one's result.
    enum Delivery: Sendable {
        /// Sent now (this request is the first).
        case sent(OpenPushDelivery.Outcome)
        /// Not sent: the repeat of `First`'s request.
        case repeated(First)
    }

    private enum Entry {
        case inFlight(requestId: String, waiters: [CheckedContinuation<First?, Never>])
        case done(First)
    }

    /// How long an accepted update is remembered.
    let window: Duration
    /// The most remembered at once; the oldest go first beyond it.
    let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    /// Remembers accepted updates for `window` (none when it is zero), at most `capacity`.
    init(window: Duration, capacity: Int = 10_000) {
        self.window = window
        self.capacity = max(1, capacity)
    }

    /// The fingerprint two identical updates share: SHA-256 over the OpenPush key's
    /// fingerprint and every request's method, path and body bytes. Nil when any request is
    /// a start (starts carry their own idempotency key) or nothing is remembered.
    func key(for requests: [OpenPushRequest], key: String) -> String? {
        guard window > .zero, !requests.isEmpty else { return nil }
        var bytes = Fingerprint.sha256(key)
        for request in requests {
            guard case .update = request.payload else { return nil }
            bytes += Array("\n\(request.method) \(request.path)\n".utf8) + JSONWriter.bytes(.object(request.body))
        }
        return Fingerprint.hex(Fingerprint.sha256(bytes: bytes))
    }

    /// Sends with `send` unless the same update (`key`) is in flight or was accepted within
    /// the window; `requestId` is this request's.
    func deliver(key: String, requestId: String, send: () async -> OpenPushDelivery.Outcome) async -> Delivery {
        let now = ContinuousClock.now
        enum Step { case send, wait, answer(First) }
        let step = entries.withLock { all -> Step in
            switch all[key] {
            case .inFlight?: return .wait
            case .done(let first)? where now - first.finishedAt < window: return .answer(first)
            default:
                all[key] = .inFlight(requestId: requestId, waiters: [])
                return .send
            }
        }
        switch step {
        case .answer(let first): return .repeated(first)
        case .wait:
            let first = await withCheckedContinuation { (continuation: CheckedContinuation<First?, Never>) in
                let resumeNow = entries.withLock { all -> First?? in
                    switch all[key] {
                    case .inFlight(let id, var waiters)?:
                        waiters.append(continuation)
                        all[key] = .inFlight(requestId: id, waiters: waiters)
                        return .none
                    case .done(let first)?: return .some(first)
                    case nil: return .some(nil)
                    }
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
            if let first { return .repeated(first) }
            return await deliver(key: key, requestId: requestId, send: send)
        case .send:
            let outcome = await send()
            // Kept without its attempts (their upstream bodies): a repeat is answered from the results.
            let kept: OpenPushDelivery.Outcome = if case .delivered(let results, _) = outcome { .delivered(results: results, attempts: []) } else { outcome }
            let first = First(requestId: requestId, outcome: kept, finishedAt: .now)
            let waiters = entries.withLock { all -> [CheckedContinuation<First?, Never>] in
                guard case .inFlight(_, let waiters)? = all[key] else { return [] }
                if Self.accepted(outcome) {
                    all[key] = .done(first)
                    prune(&all, now: first.finishedAt)
                } else {
                    all[key] = nil
                }
                return waiters
            }
            for waiter in waiters { waiter.resume(returning: first) }
            return .sent(outcome)
        }
    }

    /// Whether OpenPush accepted every request (only then is a repeat answered from memory).
    static func accepted(_ outcome: OpenPushDelivery.Outcome) -> Bool {
        guard case .delivered(let results, _) = outcome, !results.isEmpty else { return false }
        return results.allSatisfy { if case .accepted = $0 { true } else { false } }
    }

    /// Forgets what the window has passed, then the oldest beyond the capacity.
    private func prune(_ all: inout [String: Entry], now: ContinuousClock.Instant) {
        guard all.count > capacity else { return }
        all = all.filter { if case .done(let first) = $0.value { now - first.finishedAt < window } else { true } }
        guard all.count > capacity else { return }
        let oldest = all.compactMap { key, entry -> (String, ContinuousClock.Instant)? in
            if case .done(let first) = entry { (key, first.finishedAt) } else { nil }
        }.sorted { $0.1 < $1.1 }.prefix(all.count - capacity)
        for (key, _) in oldest { all[key] = nil }
    }
}
