import Synchronization
import Testing
@testable import PushBridgeServer

/// ``RequestEnding`` in a running server: once the server has claimed a request's answer (a
/// stop's grace period over, a deadline), the handler's own answer arriving while the exit
/// still records the server's is not the one sent (issue 31, item 4).
struct RequestEndingServerTests {
    /// An exit that records each failure, then holds its answer until the test releases it.
    final class HeldExit: HTTPServerExit {
        let answered = Mutex<[HTTPServerFailure]>([])
        let release = AsyncGate()

        func arrived() -> HTTPRequestTicket { HTTPRequestTicket(id: "req_held", startedMs: 0) }

        func answer(_ failure: HTTPServerFailure, to request: HTTPRequest) async -> HTTPResponse {
            answered.withLock { $0.append(failure) }
            await release.wait()
            request.ticket?.markServerRecorded()
            return HTTPResponse(status: 599, headers: [("X-Answered-By", "exit")])
        }
    }

    @Test func aHandlerAnsweringWhileTheStopsAnswerIsRecordedIsNotTheOneSent() async throws {
        let exit = HeldExit()
        let handlerGate = AsyncGate()
        var configuration = HTTPServerConfiguration()
        configuration.threadCount = 1
        configuration.exit = exit
        let server = try HTTPServer(configuration: configuration) { _ in
            await handlerGate.wait()
            return HTTPResponse(status: 200, headers: [("X-Answered-By", "handler")])
        }
        async let reply = RawHTTPClient.send(port: server.port, target: "/held")
        #expect(await eventually(10) { server.core.runningHandlers == 1 }, "the handler never ran")
        let stopping = Task { await server.stop(gracePeriod: .milliseconds(20)) }
        // The grace period is over: the server claimed the answer and its exit records a 503.
        #expect(await eventually(10) { exit.answered.withLock { $0 } == [.stoppedBeforeAnswer] }, "the stop never claimed the answer")
        // The handler answers now, and its task ends (the exit's is still held).
        handlerGate.open()
        #expect(await eventually(10) { server.core.tasks.running == 1 }, "the handler's task never ended")
        exit.release.open()
        let answer = try await reply
        #expect(answer.status == 599, "the caller got \(answer.status) from \(answer.header("X-Answered-By") ?? "?")")
        #expect(answer.header("X-Answered-By") == "exit")
        await stopping.value
        #expect(server.core.tasks.running == 0)
    }
}
