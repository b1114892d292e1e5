/// How one request ends, as one state machine: who answers it (the handler by its exit, or the
/// server with an ``HTTPServerFailure``), and when that answer is decided. Every way a request
/// can end is an ``Event``; ``on(_:)`` is the only transition, pure, and says what the caller
/// must do (``Effect``). Exactly one answer is ever decided (``Effect/send`` or
/// ``Effect/respond(_:)``, never both, never twice), whatever the order the events race in:
/// the handler's answer against its deadline, against the caller going away, against a stop.
///
/// ``HTTPRequestTicket`` holds one, under its lock, for each request from its request line on.
public enum RequestEnding: Sendable, Equatable {
    /// Nobody has claimed the answer: the request is read or its handler runs.
    case running
    /// `claim` records the answer through the exit (the handler its own, or the server its
    /// failure); nothing is sent yet. `overdue`: a handler deadline passed since the claim, and
    /// the next one answers without the exit (the exit is stuck).
    case claimed(HTTPRequestTicket.Claim, overdue: Bool)
    /// The answer is decided and its connection resumed with it; `claim` is whose record it
    /// carries (nil: the responder answered with nobody recording, a server without an exit).
    case answered(HTTPRequestTicket.Claim?)
    /// libmicrohttpd finished the request before an answer was decided (the caller went away,
    /// or the daemon stopped); `claim` is whoever was recording then.
    case gone(HTTPRequestTicket.Claim?)

    /// Something that moves a request towards its end.
    public enum Event: Sendable, Equatable {
        /// The handler reached its exit and asks to record its own answer.
        case handlerAtExit
        /// An answer is ready to send, from the handler or from the server (what the exit
        /// returned for its failure, or the responder's answer of a server without an exit).
        /// Once the answer is claimed, only the claimer's is sent.
        case answerReady(from: Side)
        /// The handler deadline passed with no answer sent; `throughExit`: the server has an
        /// exit (``HTTPServerConfiguration/exit``) to record its failure through.
        case deadlinePassed(HTTPServerFailure, throughExit: Bool)
        /// The server answers `failure` itself, through the exit, unless someone claimed the
        /// answer first: a refusal before the handler (413, a head rule, a drain) or the end of
        /// a stop's grace period.
        case serverAnswers(HTTPServerFailure)
        /// The server answers `failure` with its responder now, without the exit (a stop whose
        /// exit did not answer in time, a server going away).
        case abandoned(HTTPServerFailure)
        /// libmicrohttpd is done with the request (answered, the caller gone, the daemon stopped).
        case closed
    }

    /// Who makes an answer.
    public enum Side: Sendable, Equatable {
        /// The handler.
        case handler
        /// The server itself.
        case server
    }

    /// What the caller of ``on(_:)`` does next.
    public enum Effect: Sendable, Equatable {
        /// Nothing.
        case none
        /// The handler records its own answer through the exit.
        case recordOwnAnswer
        /// The server answered `failure` for this request: the handler waits for the server's
        /// record, adds how it ended, and leaves with the server's answer.
        case joinServerAnswer(HTTPServerFailure)
        /// The server records `failure` through the exit, whose answer then comes back as
        /// ``Event/answerReady``; the deadline keeps watching.
        case recordThroughExit(HTTPServerFailure)
        /// A deadline passed while the answer is being recorded: watch for one more.
        case watchAgain
        /// This answer is the one: resume the connection with it.
        case send
        /// An answer was decided before, the other side claimed the answer, or the caller is
        /// gone: this one is not sent.
        case discard
        /// Answer `failure` with the responder now, without the exit.
        case respond(HTTPServerFailure)
        /// The caller is gone: cancel the work still running for it.
        case cancelWork
    }

    /// Whose record the answer carries so far.
    public var claim: HTTPRequestTicket.Claim? {
        switch self {
        case .running: nil
        case .claimed(let claim, _): claim
        case .answered(let claim), .gone(let claim): claim
        }
    }

    /// Which side makes the answers `claim` records.
    static func side(of claim: HTTPRequestTicket.Claim) -> Side {
        switch claim {
        case .handler: .handler
        case .server: .server
        }
    }

    /// Whether the answer is decided or will never be (the caller is gone).
    public var isOver: Bool {
        switch self {
        case .running, .claimed: false
        case .answered, .gone: true
        }
    }

    /// The state after `event` and what to do about it.
    public func on(_ event: Event) -> (RequestEnding, Effect) {
        switch (self, event) {
        case (.running, .handlerAtExit):
            return (.claimed(.handler, overdue: false), .recordOwnAnswer)
        case (_, .handlerAtExit):
            // The server's record, if it claimed first; else (a responder's answer with nobody
            // recording, or the caller gone) the handler still records its own.
            if case .server(let failure)? = claim { return (self, .joinServerAnswer(failure)) }
            if claim == .handler { return (self, .none) }
            switch self {
            case .answered: return (.answered(.handler), .recordOwnAnswer)
            default: return (.gone(.handler), .recordOwnAnswer)
            }

        case (.running, .answerReady):
            return (.answered(nil), .send)
        case (.claimed(let claim, _), .answerReady(let side)):
            // The claimer's answer is the one; the other side's waits for it.
            guard Self.side(of: claim) == side else { return (self, .discard) }
            return (.answered(claim), .send)
        case (.answered, .answerReady), (.gone, .answerReady):
            return (self, .discard)

        case (.running, .deadlinePassed(let failure, let throughExit)):
            guard throughExit else { return (.answered(nil), .respond(failure)) }
            return (.claimed(.server(failure), overdue: true), .recordThroughExit(failure))
        case (.claimed(let claim, false), .deadlinePassed):
            return (.claimed(claim, overdue: true), .watchAgain)
        case (.claimed(let claim, true), .deadlinePassed(let failure, _)):
            return (.answered(claim), .respond(failure))
        case (.answered, .deadlinePassed), (.gone, .deadlinePassed):
            return (self, .none)

        case (.running, .serverAnswers(let failure)):
            return (.claimed(.server(failure), overdue: false), .recordThroughExit(failure))
        case (_, .serverAnswers):
            return (self, .none)

        case (.running, .abandoned(let failure)):
            return (.answered(nil), .respond(failure))
        case (.claimed(let claim, _), .abandoned(let failure)):
            return (.answered(claim), .respond(failure))
        case (.answered, .abandoned), (.gone, .abandoned):
            return (self, .none)

        case (.running, .closed), (.claimed, .closed):
            return (.gone(claim), .cancelWork)
        case (.answered, .closed), (.gone, .closed):
            return (self, .none)
        }
    }
}
