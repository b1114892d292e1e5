import Synchronization

/// Completions the audit could not take while their answer waited (the file locked by another
/// process, the disk full): each is retried in the background until the store takes it, so no
/// row stays `pending` in a live process once the store works again. What is written is what
/// is known: the upstream's answer and the answer the caller actually got.
final class AuditLateCompletions: Sendable {
    /// How long the retry loop waits between rounds.
    static let retryInterval: Duration = .milliseconds(200)

    private struct State {
        var waiting: [String: AuditCompletion] = [:]
        var running = false
        var stopped = false
    }

    private let audit: AuditStore
    private let log: EventLog
    private let state = Mutex(State())

    /// A reconciler writing to `audit`, reporting to `log`.
    init(audit: AuditStore, log: EventLog) {
        self.audit = audit
        self.log = log
    }

    /// Completions not written yet.
    var count: Int { state.withLock { $0.waiting.count } }

    /// Writes `completion` for `requestId` as soon as the store takes it (replacing one
    /// waiting for the same request).
    func add(_ requestId: String, _ completion: AuditCompletion) {
        let start = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.waiting[requestId] = completion
            defer { state.running = true }
            return !state.running
        }
        if start { Task { await run() } }
    }

    /// Stops retrying after one last round (before the store closes); returns how many
    /// completions are still not written.
    @discardableResult
    func stop() async -> Int {
        state.withLock { $0.stopped = true }
        await round()
        return count
    }

    private func run() async {
        while true {
            await round()
            let again = state.withLock { state -> Bool in
                if state.waiting.isEmpty || state.stopped { state.running = false; return false }
                return true
            }
            guard again else { return }
            try? await Task.sleep(for: Self.retryInterval)
        }
    }

    /// One attempt at every waiting completion.
    private func round() async {
        for (requestId, completion) in state.withLock({ $0.waiting }) {
            do {
                try await audit.finish(requestId, completion)
            } catch {
                continue
            }
            let written = state.withLock { state -> Bool in
                // A newer completion for the same request may have come meanwhile.
                guard state.waiting[requestId]?.finishedAt == completion.finishedAt else { return false }
                state.waiting[requestId] = nil
                return true
            }
            if written { log.warning("late audit completion written", ["request_id": .string(requestId), "outcome": .string(completion.outcome.rawValue)]) }
        }
    }
}
