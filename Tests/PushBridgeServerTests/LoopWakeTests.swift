import Testing
@testable import PushBridgeServer

/// Nothing wakes an event loop per request that the request does not need (issue 31, item 3,
/// in the HTTP server's room): a request read, handled and answered on its loop is woken by
/// its own connection's readiness, never by another thread (``EventLoop/wakes``).
struct LoopWakeTests {
    @Test func theWakeCounterCountsAWakeFromAnotherThread() async {
        let loop = EventLoop(name: "wake-loop")
        defer { loop.shutdown() }
        // Let the loop park, then hand it work from this thread until one wake is counted.
        let woken = await eventually(10) {
            loop.execute {}
            return loop.wakes.load(ordering: .relaxed) > 0
        }
        #expect(woken, "a job from another thread never woke the parked loop")
    }

    @Test func requestsAnsweredOnTheirLoopWakeItFromNoOtherThread() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.threadCount = 1
        let server = try HTTPServer(configuration: configuration) { request in
            // A suspension resumed on the same loop, as a pipeline's await is.
            await Task.yield()
            return HTTPResponse(status: 200, body: request.body)
        }
        let loop = server.loops[0]
        let warmUp = try await RawHTTPClient.send(port: server.port, method: "POST", body: Array("first".utf8))
        #expect(warmUp.status == 200)
        let before = loop.wakes.load(ordering: .relaxed)
        for index in 0..<20 {
            let response = try await RawHTTPClient.send(port: server.port, method: "POST", target: "/echo/\(index)", body: Array("body \(index)".utf8))
            #expect(response.status == 200)
            #expect(response.text == "body \(index)")
        }
        let wakes = loop.wakes.load(ordering: .relaxed) - before
        #expect(wakes == 0, "20 requests woke their loop \(wakes) times from another thread")
        await server.stop()
    }
}
