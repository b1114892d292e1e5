import Testing
@testable import PushBridgeServer

/// ``RequestEnding``: every way a request can end, as one pure transition function (issue 31,
/// item 4). The table is the whole specification: every state meets every event once.
struct RequestEndingTests {
    typealias State = RequestEnding
    typealias Event = RequestEnding.Event
    typealias Effect = RequestEnding.Effect

    static let deadline = HTTPServerFailure.handlerDeadlineExceeded(.seconds(1))
    static let refused = HTTPServerFailure.bodyTooLarge(limit: 10)
    static let stopped = HTTPServerFailure.stoppedBeforeAnswer

    /// One state of each shape (the server's claims carry ``refused``).
    static let states: [State] = [
        .running,
        .claimed(.handler, overdue: false), .claimed(.handler, overdue: true),
        .claimed(.server(refused), overdue: false), .claimed(.server(refused), overdue: true),
        .answered(nil), .answered(.handler), .answered(.server(refused)),
        .gone(nil), .gone(.handler), .gone(.server(refused)),
    ]

    static let events: [Event] = [
        .handlerAtExit, .answerReady(from: .handler), .answerReady(from: .server), .deadlinePassed(deadline, throughExit: true), .deadlinePassed(deadline, throughExit: false),
        .serverAnswers(stopped), .abandoned(stopped), .closed,
    ]

    /// A row of the table: in `state`, `event` leads to `next` with `effect`.
    struct Row: Sendable, CustomTestStringConvertible {
        let state: State, event: Event, next: State, effect: Effect
        var testDescription: String { "\(state) + \(event) -> \(next), \(effect)" }
    }

    /// The decided and gone states: nothing but the handler's claim changes them.
    static let over: [State] = [.answered(nil), .answered(.handler), .answered(.server(refused)), .gone(nil), .gone(.handler), .gone(.server(refused))]

    static let table: [Row] = {
        var rows: [Row] = []
        func row(_ state: State, _ event: Event, _ next: State, _ effect: Effect) { rows.append(Row(state: state, event: event, next: next, effect: effect)) }
        let claims: [HTTPRequestTicket.Claim] = [.handler, .server(refused)]
        // The handler at its exit: it records its own answer unless the server claimed first.
        row(.running, .handlerAtExit, .claimed(.handler, overdue: false), .recordOwnAnswer)
        for overdue in [false, true] {
            row(.claimed(.handler, overdue: overdue), .handlerAtExit, .claimed(.handler, overdue: overdue), .none)
            row(.claimed(.server(refused), overdue: overdue), .handlerAtExit, .claimed(.server(refused), overdue: overdue), .joinServerAnswer(refused))
        }
        row(.answered(nil), .handlerAtExit, .answered(.handler), .recordOwnAnswer)
        row(.answered(.handler), .handlerAtExit, .answered(.handler), .none)
        row(.answered(.server(refused)), .handlerAtExit, .answered(.server(refused)), .joinServerAnswer(refused))
        row(.gone(nil), .handlerAtExit, .gone(.handler), .recordOwnAnswer)
        row(.gone(.handler), .handlerAtExit, .gone(.handler), .none)
        row(.gone(.server(refused)), .handlerAtExit, .gone(.server(refused)), .joinServerAnswer(refused))
        // An answer ready: unclaimed, the first one is sent; claimed, the claimer's; the rest
        // are discarded.
        for side in [RequestEnding.Side.handler, .server] {
            row(.running, .answerReady(from: side), .answered(nil), .send)
            for state in over { row(state, .answerReady(from: side), state, .discard) }
        }
        for overdue in [false, true] {
            row(.claimed(.handler, overdue: overdue), .answerReady(from: .handler), .answered(.handler), .send)
            row(.claimed(.handler, overdue: overdue), .answerReady(from: .server), .claimed(.handler, overdue: overdue), .discard)
            row(.claimed(.server(refused), overdue: overdue), .answerReady(from: .server), .answered(.server(refused)), .send)
            row(.claimed(.server(refused), overdue: overdue), .answerReady(from: .handler), .claimed(.server(refused), overdue: overdue), .discard)
        }
        // The deadline: through the exit the first time, the responder the next (or at once
        // without an exit).
        row(.running, .deadlinePassed(deadline, throughExit: true), .claimed(.server(deadline), overdue: true), .recordThroughExit(deadline))
        row(.running, .deadlinePassed(deadline, throughExit: false), .answered(nil), .respond(deadline))
        for exit in [true, false] {
            for claim in claims {
                row(.claimed(claim, overdue: false), .deadlinePassed(deadline, throughExit: exit), .claimed(claim, overdue: true), .watchAgain)
                row(.claimed(claim, overdue: true), .deadlinePassed(deadline, throughExit: exit), .answered(claim), .respond(deadline))
            }
            for state in over { row(state, .deadlinePassed(deadline, throughExit: exit), state, .none) }
        }
        // The server answers itself (a refusal, a stop's grace period over) only if unclaimed.
        row(.running, .serverAnswers(stopped), .claimed(.server(stopped), overdue: false), .recordThroughExit(stopped))
        for claim in claims {
            for overdue in [false, true] { row(.claimed(claim, overdue: overdue), .serverAnswers(stopped), .claimed(claim, overdue: overdue), .none) }
        }
        for state in over { row(state, .serverAnswers(stopped), state, .none) }
        // Abandoned: the responder answers whatever was undecided.
        row(.running, .abandoned(stopped), .answered(nil), .respond(stopped))
        for claim in claims {
            for overdue in [false, true] { row(.claimed(claim, overdue: overdue), .abandoned(stopped), .answered(claim), .respond(stopped)) }
        }
        for state in over { row(state, .abandoned(stopped), state, .none) }
        // Closed: an undecided request is gone, keeping who was recording.
        row(.running, .closed, .gone(nil), .cancelWork)
        for claim in claims {
            for overdue in [false, true] { row(.claimed(claim, overdue: overdue), .closed, .gone(claim), .cancelWork) }
        }
        for state in over { row(state, .closed, state, .none) }
        return rows
    }()

    @Test func theTableHasEveryStateMeetEveryEventExactlyOnce() {
        #expect(Self.table.count == Self.states.count * Self.events.count)
        for state in Self.states {
            for event in Self.events {
                let rows = Self.table.filter { $0.state == state && $0.event == event }
                #expect(rows.count == 1, "\(state) + \(event): \(rows.count) rows")
            }
        }
    }

    @Test(arguments: table) func everyTransition(_ row: Row) {
        let (next, effect) = row.state.on(row.event)
        #expect(next == row.next)
        #expect(effect == row.effect)
    }

    /// One side of a race: the events it makes, in its order.
    typealias Script = [Event]

    /// Every interleaving of `sides`, each keeping its own order.
    static func interleavings(_ sides: [Script]) -> [[Event]] {
        let live = sides.filter { !$0.isEmpty }
        if live.isEmpty { return [[]] }
        var all: [[Event]] = []
        for index in live.indices {
            var rest = live
            let first = rest[index].removeFirst()
            for tail in interleavings(rest) { all.append([first] + tail) }
        }
        return all
    }

    /// The handler (through the proxy's exit): claims, then its answer is ready.
    static let handler: Script = [.handlerAtExit, .answerReady(from: .handler)]

    static let races: [(name: String, sides: [Script])] = [
        ("deadline vs answer", [handler, [.deadlinePassed(deadline, throughExit: true), .answerReady(from: .server)], [.deadlinePassed(deadline, throughExit: true)]]),
        ("deadline without an exit vs answer", [[.answerReady(from: .handler)], [.deadlinePassed(deadline, throughExit: false)]]),
        ("client gone vs answer", [handler, [.closed]]),
        ("stop vs answer", [handler, [.serverAnswers(stopped), .answerReady(from: .server), .abandoned(stopped)]]),
        ("refusal vs deadline", [[.serverAnswers(refused), .answerReady(from: .server)], [.deadlinePassed(deadline, throughExit: true), .deadlinePassed(deadline, throughExit: true)]]),
        ("everything at once", [handler, [.deadlinePassed(deadline, throughExit: true), .answerReady(from: .server)], [.serverAnswers(stopped), .abandoned(stopped)], [.closed]]),
    ]

    /// Whatever order the sides race in, exactly one answer leaves (none when the caller went
    /// away first, and never one after), and exactly one side records it through the exit.
    @Test(arguments: races.map(\.name)) func exactlyOneAnswerLeavesWhateverTheOrder(_ name: String) throws {
        let sides = try #require(Self.races.first { $0.name == name }).sides
        let orders = Self.interleavings(sides)
        #expect(orders.count > 1, "a race of one order")
        for order in orders {
            var state = State.running
            var answers = 0, records = 0, closedBeforeAnswer = false
            for event in order {
                let (next, effect) = state.on(event)
                state = next
                switch effect {
                case .send, .respond:
                    answers += 1
                    if case .answerReady(let side) = event, let claim = state.claim {
                        #expect(RequestEnding.side(of: claim) == side, "\(name): \(side)'s answer sent for \(claim) in \(order)")
                    }
                    #expect(!closedBeforeAnswer, "\(name): an answer after the caller went away in \(order)")
                case .recordOwnAnswer, .recordThroughExit: records += 1
                default: break
                }
                if event == .closed, answers == 0 { closedBeforeAnswer = true }
            }
            #expect(answers == (closedBeforeAnswer ? 0 : 1), "\(name): \(answers) answers in \(order)")
            #expect(records <= 1, "\(name): \(records) records in \(order)")
            #expect(state.isOver, "\(name): never ended in \(order)")
        }
    }
}
