import Foundation
import PushBridgeCore
import Synchronization
import Testing
@testable import PushBridgeServer

/// The server's one hook for the answers it makes itself (``HTTPServerConfiguration/exit``):
/// every request carries the ticket the exit gave it at its request line, the answer at a
/// handler's deadline is the exit's, and a handler already in its exit (or an exit that is
/// stuck) never holds the connection past a second deadline.
@Suite(.serialized)
struct HTTPServerExitTests {
    /// An exit that numbers its tickets and answers every failure `599` with its ticket's id.
    final class CountingExit: HTTPServerExit {
        let issued = Atomic<Int>(0)
        let answered = Mutex<[HTTPServerFailure]>([])

        func arrived() -> HTTPRequestTicket {
            let n = issued.add(1, ordering: .relaxed).newValue
            return HTTPRequestTicket(id: "req_test_\(n)", startedMs: Int64(n))
        }

        func answer(_ failure: HTTPServerFailure, to request: HTTPRequest) async -> HTTPResponse {
            answered.withLock { $0.append(failure) }
            request.ticket?.markServerRecorded()
            return HTTPResponse(status: 599, headers: [("X-Ticket", request.ticket?.id ?? "-")])
        }
    }

    static func server(_ exit: CountingExit, deadline: Duration, handler: @escaping HTTPHandler) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration()
        configuration.handlerDeadline = deadline
        configuration.exit = exit
        return try HTTPServer(configuration: configuration, handler: handler)
    }

    @Test func theHandlerGetsTheTicketAndTheAnswerAtItsDeadlineIsTheExits() async throws {
        let exit = CountingExit()
        let seen = Mutex<String?>(nil)
        let server = try Self.server(exit, deadline: .milliseconds(200)) { request in
            seen.withLock { $0 = request.ticket?.id }
            // A handler that outlives its deadline: the slowness under test, not a wait.
            if request.path == "/stuck" { try? await Task.sleep(for: .seconds(5)) }
            return HTTPResponse(status: 200)
        }
        let quick = try await RawHTTPClient.send(port: server.port, target: "/quick")
        #expect(quick.status == 200 && seen.withLock { $0 } == "req_test_1")
        let stuck = try await RawHTTPClient.send(port: server.port, target: "/stuck")
        #expect(stuck.status == 599 && stuck.header("X-Ticket") == "req_test_2", "\(stuck.status)")
        #expect(exit.answered.withLock { $0 } == [.handlerDeadlineExceeded(.milliseconds(200))])
        await server.stop()
    }

    @Test func aHandlerAlreadyInItsExitGetsOneMoreDeadlineThenTheRespondersAnswer() async throws {
        let exit = CountingExit()
        let server = try Self.server(exit, deadline: .milliseconds(300)) { request in
            // At its exit, and stuck there (an audit that never commits): the slowness under test, not a wait.
            _ = request.ticket?.claim(.handler)
            try? await Task.sleep(for: .seconds(5))
            return HTTPResponse(status: 200)
        }
        let started = ContinuousClock.now
        let reply = try await RawHTTPClient.send(port: server.port, target: "/exiting")
        let elapsed = ContinuousClock.now - started
        #expect(reply.status == 504, "\(reply.status)")
        #expect(elapsed >= .milliseconds(600) && elapsed < .seconds(3), "answered after \(elapsed)")
        #expect(exit.answered.withLock { $0 }.isEmpty, "the exit answered for a handler that had claimed the request")
        await server.stop()
    }

    /// A handler that outlives a stop's grace period: the slowness under test, not a wait.
    static let outlivesTheGrace: HTTPHandler = { _ in
        try? await Task.sleep(for: .seconds(5))
        return HTTPResponse(status: 200)
    }

    /// The answer to a request whose handler still runs when `server` stops with a 100 ms grace period.
    static func answerAtStop(_ server: HTTPServer) async throws -> RawHTTPResponse {
        let reply = Task { try await RawHTTPClient.send(port: server.port, target: "/running") }
        #expect(await eventually { server.core.runningHandlers == 1 }, "the handler never ran")
        await server.stop(gracePeriod: .milliseconds(100))
        return try await reply.value
    }

    @Test func aHandlerStillRunningWhenAStopsGraceEndsIsAnsweredByTheExit() async throws {
        let exit = CountingExit()
        let answered = try await Self.answerAtStop(try Self.server(exit, deadline: .seconds(30), handler: Self.outlivesTheGrace))
        #expect(answered.status == 599 && answered.header("X-Ticket") == "req_test_1", "\(answered.status)")
        #expect(exit.answered.withLock { $0 } == [.stoppedBeforeAnswer])
    }

    @Test func withoutAnExitAHandlerStillRunningAtAStopGetsTheResponders503() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.failureResponder = { failure, _ in HTTPResponse(status: failure.status, headers: [("X-Responder", "yes")]) }
        let answered = try await Self.answerAtStop(try HTTPServer(configuration: configuration, handler: Self.outlivesTheGrace))
        #expect(answered.status == 503 && answered.header("X-Responder") == "yes", "\(answered.status)")
    }
}
