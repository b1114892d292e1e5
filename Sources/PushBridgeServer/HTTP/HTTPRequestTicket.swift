import Synchronization

/// One request as the server's exit (``HTTPServerExit``) knows it from its request line on:
/// the request id and arrival time the exit gave it, and who answers it.
///
/// It holds how the request ends (``RequestEnding``, one state machine): the handler (at its
/// exit) and the server (at a deadline, a refusal, a stop) both claim the answer before they
/// record one. The first claim wins: exactly one of them writes the request's access line and
/// metric, and the answer the caller gets is the one the winner recorded. The loser learns
/// what won (``claim(_:)``) and, when the server won, can wait until the server's record is
/// written (``serverRecorded()``) before adding what it knows to it.
public final class HTTPRequestTicket: Sendable {
    /// Who answers the request.
    public enum Claim: Sendable, Equatable {
        /// The handler, leaving by its exit with its own answer.
        case handler
        /// The server, answering `failure` itself (the handler's deadline passed).
        case server(HTTPServerFailure)
    }

    private struct State: Sendable {
        var ending = RequestEnding.running
        var serverRecorded = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The request's id (the audit row's and the `X-PushBridge-Request-Id` answer header's).
    public let id: String
    /// When its request line arrived, Unix milliseconds on the exit's clock.
    public let startedMs: Int64
    private let state = Mutex(State())

    /// A ticket for a request that arrived at `startedMs` and is known as `id`.
    public init(id: String, startedMs: Int64) {
        self.id = id
        self.startedMs = startedMs
    }

    /// Claims the answer for `claim` (``RequestEnding/Event/handlerAtExit`` for the handler,
    /// ``RequestEnding/Event/serverAnswers(_:)`` for the server); returns nil when this call
    /// won, else the claim that won before it (or `claim` itself, refused, when the answer was
    /// decided with nobody's claim).
    public func claim(_ claim: Claim) -> Claim? {
        let event: RequestEnding.Event = switch claim {
        case .handler: .handlerAtExit
        case .server(let failure): .serverAnswers(failure)
        }
        switch on(event) {
        case .recordOwnAnswer, .recordThroughExit: return nil
        case .joinServerAnswer(let failure): return .server(failure)
        default: return ending.claim ?? claim
        }
    }

    /// Moves the request's ending by `event` (``RequestEnding/on(_:)``) and returns what to do.
    public func on(_ event: RequestEnding.Event) -> RequestEnding.Effect {
        state.withLock { state in
            let (next, effect) = state.ending.on(event)
            state.ending = next
            return effect
        }
    }

    /// Where the request's ending is now.
    public var ending: RequestEnding { state.withLock { $0.ending } }

    /// Says that the server's own answer (its claim won) is recorded; wakes the waiters.
    public func markServerRecorded() {
        let waiters = state.withLock { state in
            state.serverRecorded = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once ``markServerRecorded()`` was called.
    public func serverRecorded() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.serverRecorded { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
