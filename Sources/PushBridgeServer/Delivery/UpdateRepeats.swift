import Foundation
import PushBridgeCore
import Synchronization

/// Remembers the updates (and ends) this instance sent recently, so that a caller's repeat of
/// one it got no answer for is not sent to OpenPush a second time.
///
/// OpenPush has no idempotency for updates: the same update sent twice is sent twice (an
/// alert rings twice). A caller whose front proxy gave up before PushBridge answered (or
/// whose own timeout did) retries, and without this the retry would be a second send. Two
/// requests are the same update when they come from the same source app (its
/// ``AppConfiguration/idempotencyScope``, as idempotency keys are scoped), the OpenPush requests
/// they translate to are the same (app, path with its activity id, body byte for byte, in
/// order) and they carry the same OpenPush key: the ``key(for:key:sourceApp:)`` fingerprint.
/// Another source app's identical update is never answered from this app's memory.
///
/// - While the first is still being sent (waiting for its slot, in flight, retrying), a
///   repeat waits for it and is answered with its result.
/// - Once OpenPush accepted every request of the first, a repeat within `window` is answered
///   with the same result (the same notification ids), without a send.
/// - Anything else (a rate-limit answer, an error, a timeout) is not remembered: the repeat
///   is a real retry and is sent. A timeout may have reached OpenPush; PushBridge cannot tell
///   and does not guess.
/// - A different update of the same activity (same source app, OpenPush app and activity id)
///   sent later clears what is remembered for that activity: after U, V, U the third is sent,
///   so the phone shows U again instead of staying on V. Only the latest update of each
///   activity can be answered from memory (``activities(of:sourceApp:)``).
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

    /// What is remembered: the sends by fingerprint, and the fingerprint of each activity's
    /// latest update (by ``activities(of:sourceApp:)``).
    private struct Memory {
        var entries: [String: Entry] = [:]
        var latest: [String: String] = [:]

        /// Whether `key` is still the latest update of every activity in `activities`.
        func isLatest(_ key: String, of activities: [String]) -> Bool {
            activities.allSatisfy { latest[$0] == key }
        }

        /// Makes `key` the latest update of `activities`, forgetting every earlier, different
        /// update of them that is done (one in flight is dropped when it finishes).
        mutating func supersede(_ activities: [String], with key: String) {
            for activity in activities {
                if let earlier = latest[activity], earlier != key, case .done? = entries[earlier] { entries[earlier] = nil }
                latest[activity] = key
            }
        }
    }

    /// How long an accepted update is remembered.
    let window: Duration
    /// The most remembered at once; the oldest go first beyond it.
    let capacity: Int
    private let memory = Mutex(Memory())

    /// Remembers accepted updates for `window` (none when it is zero), at most `capacity`.
    init(window: Duration, capacity: Int = 10_000) {
        self.window = window
        self.capacity = max(1, capacity)
    }

    /// The fingerprint two identical updates share: SHA-256 over the source app, the OpenPush
    /// key's fingerprint and every request's method, path and body bytes. Nil when any request
    /// is a start (starts carry their own idempotency key) or nothing is remembered.
    func key(for requests: [OpenPushRequest], key: String, sourceApp: String) -> String? {
        // Every request an update, checked first: a start (every OneSignal start) hashes nothing
        // and allocates nothing here.
        guard window > .zero, !requests.isEmpty, requests.allSatisfy(\.isUpdate) else { return nil }
        var bytes = Array(sourceApp.utf8) + [0] + Fingerprint.sha256(key)
        for request in requests {
            bytes += Array("\n\(request.method) \(request.path)\n".utf8) + request.bodyBytes
        }
        return Fingerprint.hex(Fingerprint.sha256(bytes: bytes))
    }

    /// The activities `requests` update, each named by the source app, the OpenPush app and
    /// the activity id: the scope in which a later, different update clears the memory.
    static func activities(of requests: [OpenPushRequest], sourceApp: String) -> [String] {
        Array(Set(requests.map { "\(sourceApp)\u{0}\($0.appId)\u{0}\($0.activityId ?? $0.path)" })).sorted()
    }

    /// Sends with `send` unless the same update (`key`) is in flight or was accepted within
    /// the window and is still the latest update of its `activities` (see
    /// ``activities(of:sourceApp:)``); `requestId` is this request's.
    func deliver(key: String, activities: [String], requestId: String, send: () async -> OpenPushDelivery.Outcome) async -> Delivery {
        let now = ContinuousClock.now
        enum Step { case send, wait, answer(First) }
        let step = memory.withLock { m -> Step in
            switch m.entries[key] {
            case .inFlight?: return .wait
            case .done(let first)? where now - first.finishedAt < window && m.isLatest(key, of: activities): return .answer(first)
            default:
                m.supersede(activities, with: key)
                m.entries[key] = .inFlight(requestId: requestId, waiters: [])
                return .send
            }
        }
        switch step {
        case .answer(let first): return .repeated(first)
        case .wait:
            let first = await withCheckedContinuation { (continuation: CheckedContinuation<First?, Never>) in
                let resumeNow = memory.withLock { m -> First?? in
                    switch m.entries[key] {
                    case .inFlight(let id, var waiters)?:
                        waiters.append(continuation)
                        m.entries[key] = .inFlight(requestId: id, waiters: waiters)
                        return .none
                    case .done(let first)?: return .some(first)
                    case nil: return .some(nil)
                    }
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
            if let first { return .repeated(first) }
            return await deliver(key: key, activities: activities, requestId: requestId, send: send)
        case .send:
            let outcome = await send()
            // Kept without its attempts (their upstream bodies): a repeat is answered from the results.
            let kept: OpenPushDelivery.Outcome = if case .delivered(let results, _) = outcome { .delivered(results: results, attempts: []) } else { outcome }
            let first = First(requestId: requestId, outcome: kept, finishedAt: .now)
            let waiters = memory.withLock { m -> [CheckedContinuation<First?, Never>] in
                guard case .inFlight(_, let waiters)? = m.entries[key] else { return [] }
                // Kept only while it is still its activities' latest update.
                if Self.accepted(outcome), m.isLatest(key, of: activities) {
                    m.entries[key] = .done(first)
                    prune(&m, now: first.finishedAt)
                } else {
                    m.entries[key] = nil
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

    /// Forgets what the window has passed, then the oldest beyond the capacity, and the
    /// activities whose latest update is forgotten.
    private func prune(_ m: inout Memory, now: ContinuousClock.Instant) {
        guard m.entries.count > capacity || m.latest.count > capacity else { return }
        m.entries = m.entries.filter { if case .done(let first) = $0.value { now - first.finishedAt < window } else { true } }
        if m.entries.count > capacity {
            let oldest = m.entries.compactMap { key, entry -> (String, ContinuousClock.Instant)? in
                if case .done(let first) = entry { (key, first.finishedAt) } else { nil }
            }.sorted { $0.1 < $1.1 }.prefix(m.entries.count - capacity)
            for (key, _) in oldest { m.entries[key] = nil }
        }
        let entries = m.entries
        m.latest = m.latest.filter { entries[$0.value] != nil }
    }
}

private extension OpenPushRequest {
    /// Whether it is an update (``UpdateRepeats`` remembers only requests made of updates).
    var isUpdate: Bool {
        if case .update = payload { true } else { false }
    }
}
