import Dispatch
import Synchronization
import Testing
@testable import PushBridgeServer

/// ``HandlerWorkers``: a handler's task runs the next request on its loop when its own answer
/// was sent (issue 31: a new task a request was about fifteen allocations), and never one
/// after a request the server answered for it, whose cancellation may still reach it.
struct HandlerWorkersTests {
    /// A server of one loop whose handler reports, for each request, the task it ran on and
    /// whether that task was cancelled; `/slow` waits past `deadline` first, ignoring
    /// cancellation (a handler stuck in a call that cannot be interrupted).
    private final class Recording: Sendable {
        let runs = Mutex<[(task: Int, path: String, cancelled: Bool)]>([])
        let slowEnded = Mutex(false)

        func server(deadline: Duration = .seconds(30)) throws -> HTTPServer {
            var configuration = HTTPServerConfiguration()
            configuration.threadCount = 1
            configuration.handlerDeadline = deadline
            return try HTTPServer(configuration: configuration) { [self] request in
                if request.path == "/slow" {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(400)) { done.resume() }
                    }
                    slowEnded.withLock { $0 = true }
                }
                let task = withUnsafeCurrentTask { $0?.hashValue } ?? 0
                runs.withLock { $0.append((task, request.path, Task.isCancelled)) }
                return HTTPResponse(status: 200, body: Array(request.path.utf8))
            }
        }
    }

    @Test func requestsOneAfterAnotherAreRunByOneTaskThatWaitsBetweenThem() async throws {
        let recording = Recording()
        let server = try recording.server()
        for index in 0..<4 {
            let response = try await RawHTTPClient.send(port: server.port, target: "/r\(index)")
            #expect(response.status == 200)
            #expect(response.text == "/r\(index)")
        }
        let runs = recording.runs.withLock { $0 }
        #expect(runs.map(\.path) == ["/r0", "/r1", "/r2", "/r3"])
        // One task for all (a task that ended may leave its address to the next, so this
        // alone does not tell a kept task from new ones: ``HandlerWorkers/waiting`` does).
        #expect(Set(runs.map(\.task)).count == 1, "each request had a task of its own")
        #expect(runs.allSatisfy { !$0.cancelled })
        // Between requests the task waits, and is not counted as running.
        #expect(await eventually(10) { server.core.workers.waiting == 1 }, "no task waits for the next request")
        #expect(server.core.tasks.running == 0)
        await server.stop()
        #expect(server.core.workers.waiting == 0, "a stopped server left a task waiting")
        #expect(server.core.tasks.running == 0)
    }

    @Test func requestsAtOnceGetATaskEachAndEveryTaskIsKept() async throws {
        let recording = Recording()
        let server = try recording.server()
        async let a = RawHTTPClient.send(port: server.port, target: "/slow")
        #expect(await eventually(10) { server.core.runningHandlers == 1 }, "the slow request never reached its handler")
        let b = try await RawHTTPClient.send(port: server.port, target: "/b")
        #expect(b.status == 200)
        #expect(try await a.status == 200)
        let runs = recording.runs.withLock { $0 }
        #expect(Set(runs.map(\.task)).count == 2, "two requests at once shared a task")
        #expect(await eventually(10) { server.core.workers.waiting == 2 }, "a task was not kept")
        let c = try await RawHTTPClient.send(port: server.port, target: "/c")
        #expect(c.status == 200)
        #expect(Set(recording.runs.withLock { $0 }.map(\.task)).count == 2, "a waiting task was not reused")
        await server.stop()
        #expect(server.core.workers.waiting == 0)
    }

    @Test func aTaskWhoseRequestTheDeadlineAnsweredEndsAndTheNextRequestIsNotCancelled() async throws {
        let recording = Recording()
        let server = try recording.server(deadline: .milliseconds(100))
        let slow = try await RawHTTPClient.send(port: server.port, target: "/slow")
        #expect(slow.status == 504)
        // The slow handler runs on, cancelled, to its end; its task then ends.
        #expect(await eventually(10) { recording.slowEnded.withLock { $0 } && server.core.tasks.running == 0 }, "the slow handler never ended")
        #expect(server.core.workers.waiting == 0, "the task the deadline cancelled was kept")
        let next = try await RawHTTPClient.send(port: server.port, target: "/next")
        #expect(next.status == 200)
        let runs = recording.runs.withLock { $0 }
        #expect(runs.map(\.path) == ["/slow", "/next"])
        #expect(runs.first?.cancelled == true, "the deadline did not cancel the slow handler")
        #expect(runs.last?.cancelled == false, "the request after the deadline's ran cancelled")
        // (Not told by the tasks' hashes: an ended task's address may be the next one's.)
        await server.stop()
    }

    /// An exit that gives each request a ticket the test can watch go.
    private final class TicketExit: HTTPServerExit {
        let tickets = Mutex<[Weak]>([])
        struct Weak: @unchecked Sendable { weak var ticket: HTTPRequestTicket? }

        func arrived() -> HTTPRequestTicket {
            let ticket = HTTPRequestTicket(id: "req_watched", startedMs: 0)
            tickets.withLock { $0.append(Weak(ticket: ticket)) }
            return ticket
        }

        func answer(_ failure: HTTPServerFailure, to request: HTTPRequest) async -> HTTPResponse { HTTPResponse(status: 503) }
    }

    @Test func aTaskWaitingForItsNextRequestHoldsNothingOfItsLast() async throws {
        let exit = TicketExit()
        var configuration = HTTPServerConfiguration()
        configuration.threadCount = 1
        configuration.exit = exit
        let server = try HTTPServer(configuration: configuration) { request in HTTPResponse(status: 200, body: Array(request.path.utf8)) }
        for index in 0..<2 {
            let response = try await RawHTTPClient.send(port: server.port, target: "/r\(index)")
            #expect(response.status == 200)
        }
        #expect(await eventually(10) { server.core.workers.waiting == 1 })
        // Each request's ticket (held by its request and exchange) goes once it is answered and
        // its connection closed: the waiting task keeps neither its first request nor its last.
        #expect(await eventually(10) { exit.tickets.withLock { $0.allSatisfy { $0.ticket == nil } } }, "a waiting task holds a request it ran")
        #expect(exit.tickets.withLock { $0.count } == 2)
        await server.stop()
    }
}
